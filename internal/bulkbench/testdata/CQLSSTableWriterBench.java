// CQLSSTableWriterBench writes a CSV file into SSTables with Cassandra's own
// bulk writer, org.apache.cassandra.io.sstable.CQLSSTableWriter, and prints
// how long that took as measured inside the JVM. castable's bulkbench
// benchmark compiles it against a Cassandra source build (3.11 or the
// 5.0-era trunk; the calls used exist in both) and runs it beside
// castable write --csv.
//
//   java ... CQLSSTableWriterBench --schema "CREATE TABLE ..." \
//     --insert "INSERT INTO ... VALUES (?, ...) USING TIMESTAMP n" \
//     --types Int32Type,UTF8Type,... --csv rows.csv --out DIR [--sorted] [--buffer-mb N]
//
// The CSV's fields are the insert's bind variables in order, unquoted
// (a quote is an error: the benchmark's rows need none), each converted by
// its column type's own fromString (AbstractType, the conversion cqlsh
// COPY's server side and sstableloader tools use) and written with
// rawAddRow. --sorted builds the writer with sorted(), which needs the rows
// in token order.
//
// The last line of standard output is
//
//   rows=N init_ns=A build_ns=B write_ns=C write_cpu_ns=D main_ns=E main_cpu_ns=F jvm_uptime_ms=G
//
// init is CQLSSTableWriter's class initialisation (client-mode
// DatabaseDescriptor, schema; on trunk the stub cluster metadata service);
// build is Builder.build(); write runs from the first CSV line read to
// close() returning (every SSTable written and synced); main is all of
// main(); CPU times are the process's (every thread: the writer's disk
// thread, GC, JIT); jvm_uptime_ms is how long the JVM had run when main()
// started.
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.apache.cassandra.db.marshal.AbstractType;
import org.apache.cassandra.db.marshal.TypeParser;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;

public class CQLSSTableWriterBench
{
    public static void main(String[] args) throws Exception
    {
        long uptime = ManagementFactory.getRuntimeMXBean().getUptime();
        long t0 = System.nanoTime(), c0 = cpu();
        String schema = null, insert = null, csv = null, out = null, types = null;
        boolean sorted = false;
        int bufferMB = 0;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--schema": schema = args[++i]; break;
                case "--insert": insert = args[++i]; break;
                case "--types": types = args[++i]; break;
                case "--csv": csv = args[++i]; break;
                case "--out": out = args[++i]; break;
                case "--sorted": sorted = true; break;
                case "--buffer-mb": bufferMB = Integer.parseInt(args[++i]); break;
                default: throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (schema == null || insert == null || csv == null || out == null || types == null)
            throw new IllegalArgumentException("want --schema, --insert, --types, --csv and --out");

        CQLSSTableWriter.Builder b = CQLSSTableWriter.builder(); // runs the class initialisation
        long t1 = System.nanoTime();
        String[] names = types.split(",");
        AbstractType<?>[] ts = new AbstractType<?>[names.length];
        for (int i = 0; i < names.length; i++)
            ts[i] = TypeParser.parse(names[i]);
        b.inDirectory(out).forTable(schema).using(insert);
        if (sorted)
            b.sorted();
        if (bufferMB > 0)
            b.withBufferSizeInMB(bufferMB);
        CQLSSTableWriter w = b.build();
        long t2 = System.nanoTime(), c2 = cpu();

        long rows = 0, lineNo = 0;
        ByteBuffer[] values = new ByteBuffer[ts.length];
        List<ByteBuffer> list = Arrays.asList(values);
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new FileInputStream(csv), StandardCharsets.UTF_8), 1 << 18))
        {
            String line;
            while ((line = r.readLine()) != null)
            {
                lineNo++;
                if (line.isEmpty())
                    continue;
                if (line.indexOf('"') >= 0)
                    throw new IOException(csv + ":" + lineNo + ": quoted fields are not supported");
                int start = 0;
                for (int i = 0; i < ts.length; i++)
                {
                    int end = i == ts.length - 1 ? line.length() : line.indexOf(',', start);
                    if (end < 0 || (i == ts.length - 1 && line.indexOf(',', start) >= 0))
                        throw new IOException(csv + ":" + lineNo + ": want " + ts.length + " fields");
                    values[i] = ts[i].fromString(line.substring(start, end));
                    start = end + 1;
                }
                w.rawAddRow(list);
                rows++;
            }
        }
        w.close();
        long t3 = System.nanoTime(), c3 = cpu();
        System.out.printf("rows=%d init_ns=%d build_ns=%d write_ns=%d write_cpu_ns=%d main_ns=%d main_cpu_ns=%d jvm_uptime_ms=%d%n",
                          rows, t1 - t0, t2 - t1, t3 - t2, c3 - c2, t3 - t0, c3 - c0, uptime);
        System.exit(0); // whatever threads client-mode services started
    }

    // cpu is the CPU time of the whole process (all threads) in ns.
    static long cpu()
    {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
