// HLLGround is castable's own helper (not Cassandra's or stream-lib's code):
// it runs stream-lib's HyperLogLogPlus, with the partition key hash of
// Cassandra's MurmurHash, over the plan castable's tests write, so that
// castable's HyperLogLog++ merge and cardinality can be compared with the
// library Cassandra runs. Compiled by the Go test against the stream-lib jar
// and Cassandra's org/apache/cassandra/utils/MurmurHash.java.
//
// Usage: java -cp stream.jar:classes HLLGround PLAN > OUT
//
// PLAN lines (fields separated by one space):
//
//	keys NAME SEED START N     a HyperLogLogPlus(13, 25) offered, as
//	                           MetadataCollector.addKey does,
//	                           MurmurHash.hash2_64(key, 0, 8, 0) of the keys
//	                           j = START .. START+N-1, key = the 8 big-endian
//	                           bytes of SEED * 0x9E3779B97F4A7C15 + j
//	bytes NAME HEX             the sketch HyperLogLogPlus.Builder.build
//	                           makes of these serialized bytes
//	merge NAME A B ...         c = A; c = c.merge(B); ... as
//	                           SSTableReader.getApproximateKeyCount does,
//	                           every input rebuilt from its bytes
//	logs                       Math.log and the rounded linear counting of
//	                           every value cardinality() can take it of
//
// Output, one line per PLAN line but "logs":
//
//	sketch NAME LEN SHA CARD   getBytes() of the offered sketch (LEN bytes,
//	                           SHA the first 8 bytes of their SHA-256 in
//	                           hex) and cardinality() of that sketch rebuilt
//	                           from them (for "bytes": of the rebuilt one)
//	merge NAME CARD LEN SHA    cardinality() and getBytes() of the merge
//	NAME error CLASS           what was thrown instead
//	logs normal SHA sparse SHA bits SHA   digests of what cardinality()
//	                           computes with Math.log (see logs())
import java.io.BufferedReader;
import java.io.FileReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;

import com.clearspring.analytics.stream.cardinality.HyperLogLogPlus;
import com.clearspring.analytics.stream.cardinality.ICardinality;
import org.apache.cassandra.utils.MurmurHash;

public class HLLGround
{
    static final Map<String, byte[]> sketches = new HashMap<>();

    public static void main(String[] args) throws Exception
    {
        PrintStream out = new PrintStream(new java.io.BufferedOutputStream(System.out, 1 << 16), false, "UTF-8");
        try (BufferedReader in = new BufferedReader(new FileReader(args[0])))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                if (line.isEmpty() || line.startsWith("#"))
                    continue;
                String[] f = line.split(" ");
                switch (f[0])
                {
                    case "keys":
                    case "bytes":
                        sketch(out, f);
                        break;
                    case "merge":
                        merge(out, f);
                        break;
                    case "logs":
                        logs(out);
                        break;
                    default:
                        throw new IllegalArgumentException("bad plan line: " + line);
                }
            }
        }
        out.flush();
    }

    static void sketch(PrintStream out, String[] f) throws Exception
    {
        String name = f[1];
        byte[] bytes;
        if (f[0].equals("keys"))
        {
            long seed = Long.parseLong(f[2]), start = Long.parseLong(f[3]), n = Long.parseLong(f[4]);
            HyperLogLogPlus h = new HyperLogLogPlus(13, 25);
            ByteBuffer key = ByteBuffer.allocate(8);
            for (long j = start; j < start + n; j++)
            {
                key.putLong(0, seed * 0x9E3779B97F4A7C15L + j);
                h.offerHashed(MurmurHash.hash2_64(key, 0, 8, 0));
            }
            bytes = h.getBytes();
        }
        else
        {
            bytes = hex(f.length > 2 ? f[2] : "");
        }
        sketches.put(name, bytes);
        try
        {
            long card = HyperLogLogPlus.Builder.build(bytes).cardinality();
            out.println("sketch " + name + " " + bytes.length + " " + sha(bytes) + " " + card);
        }
        catch (Throwable t)
        {
            out.println(name + " error " + t.getClass().getName());
        }
    }

    static void merge(PrintStream out, String[] f)
    {
        String name = f[1];
        try
        {
            ICardinality c = null;
            for (int i = 2; i < f.length; i++)
            {
                ICardinality next = HyperLogLogPlus.Builder.build(sketches.get(f[i]));
                c = c == null ? next : c.merge(next);
            }
            long card = c.cardinality();
            byte[] b = c.getBytes();
            out.println("merge " + name + " " + card + " " + b.length + " " + sha(b));
        }
        catch (Throwable t)
        {
            out.println(name + " error " + t.getClass().getName());
        }
    }

    // logs digests what cardinality() makes of Math.log over every value
    // it can take it of, as 8 big-endian bytes each: for z = 1 .. 8192
    // zero registers, Math.round(H) of H = 8192 * Math.log(8192 / (double)
    // z) and whether H < 6500 (NORMAL's linear counting); for n = 0 ..
    // 2^22 sparse entries, Math.round(2^25 * Math.log(2^25 / (double)
    // (2^25 - n))) (SPARSE's). "bits" digests the doubles themselves.
    static void logs(PrintStream out) throws Exception
    {
        MessageDigest normal = MessageDigest.getInstance("SHA-256");
        MessageDigest sparse = MessageDigest.getInstance("SHA-256");
        MessageDigest bits = MessageDigest.getInstance("SHA-256");
        ByteBuffer b = ByteBuffer.allocate(8);
        for (int z = 1; z <= 8192; z++)
        {
            int count = 8192;
            double zeros = z;
            double h = count * Math.log(count / zeros);
            normal.update(b.putLong(0, Math.round(h)).array());
            normal.update(b.putLong(0, h < 6500 ? 1 : 0).array());
            bits.update(b.putLong(0, Double.doubleToRawLongBits(h)).array());
        }
        int sm = 1 << 25;
        for (int n = 0; n <= 1 << 22; n++)
        {
            double v = sm - n;
            double lc = sm * Math.log(sm / v);
            sparse.update(b.putLong(0, Math.round(lc)).array());
            bits.update(b.putLong(0, Double.doubleToRawLongBits(lc)).array());
        }
        out.println("logs normal " + hexOf(normal.digest(), 16) + " sparse " + hexOf(sparse.digest(), 16) + " bits " + hexOf(bits.digest(), 16));
    }

    static byte[] hex(String s)
    {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++)
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    static String sha(byte[] b) throws Exception
    {
        return hexOf(MessageDigest.getInstance("SHA-256").digest(b), 8);
    }

    static String hexOf(byte[] b, int n)
    {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++)
            sb.append(String.format("%02x", b[i] & 0xff));
        return sb.toString();
    }
}
