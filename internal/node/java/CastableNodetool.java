// castable's nodetool server for the live-node tests (internal/node): one
// JVM per node that runs Cassandra's own NodeTool for each request, so a
// test pays the JVM's start once instead of per command (about 1.4 s).
//
// Protocol, on stdin/stdout: a request is one line of tab-separated
// arguments (what follows `nodetool -h 127.0.0.1 -p JMX`); the answer is a
// line "=== <exit status> <length>" and then <length> bytes of what the
// command printed (stdout and stderr together). It lives in NodeTool's
// package for NodeProbeFactory, which is package-private.
package org.apache.cassandra.tools;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public class CastableNodetool
{
    public static void main(String[] argv) throws Exception
    {
        String jmxPort = argv[0];
        PrintStream answer = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null)
        {
            List<String> args = new ArrayList<>(Arrays.asList("-h", "127.0.0.1", "-p", jmxPort));
            if (!line.isEmpty())
                args.addAll(Arrays.asList(line.split("\t", -1)));
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            PrintStream ps = new PrintStream(buf, true, StandardCharsets.UTF_8);
            PrintStream oldOut = System.out, oldErr = System.err;
            System.setOut(ps);
            System.setErr(ps);
            int status;
            try
            {
                status = new NodeTool(new NodeProbeFactory(), new Output(ps, ps)).execute(args.toArray(new String[0]));
            }
            catch (Throwable t)
            {
                t.printStackTrace(ps);
                status = 2;
            }
            finally
            {
                System.setOut(oldOut);
                System.setErr(oldErr);
            }
            ps.flush();
            byte[] b = buf.toByteArray();
            answer.print("=== " + status + " " + b.length + "\n");
            answer.write(b);
            answer.flush();
        }
    }
}
