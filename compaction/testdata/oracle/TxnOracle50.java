package org.apache.cassandra.db.lifecycle;

import java.io.BufferedReader;
import org.apache.cassandra.io.util.File;
import java.io.InputStreamReader;
import java.util.Arrays;
import java.util.Collections;

import org.apache.cassandra.config.DatabaseDescriptor;

/**
 * Runs Cassandra 5.0's start-up cleanup of transaction logs
 * (LogTransaction.removeUnfinishedLeftovers, what ColumnFamilyStore's
 * scrubDataDirectories and sstableutil --cleanup call) for castable's
 * tests. Each input line is a directory; each output line is
 * "<directory>\t<true|false>\t<file> <file> ..." with the files left in it,
 * sorted.
 */
public class TxnOracle50
{
    public static void main(String[] args) throws Exception
    {
        DatabaseDescriptor.clientInitialization(true, org.apache.cassandra.config.Config::new);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        StringBuilder out = new StringBuilder();
        for (String dir; (dir = in.readLine()) != null; )
        {
            boolean ok;
            try
            {
                ok = LogTransaction.removeUnfinishedLeftovers(Collections.singletonList(new File(dir)));
            }
            catch (Throwable t)
            {
                ok = false;
                System.err.println(dir + ": " + t);
            }
            String[] left = new File(dir).tryListNames();
            Arrays.sort(left);
            out.append(dir).append('\t').append(ok).append('\t').append(String.join(" ", left)).append('\n');
        }
        System.out.print(out);
    }
}
