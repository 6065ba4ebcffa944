import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

import org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy;
import org.apache.cassandra.utils.Pair;

/**
 * Runs Cassandra's SizeTieredCompactionStrategy.getBuckets for castable's
 * tests. Each input line is "bucketHigh bucketLow minSSTableSize size0
 * size1 ..."; each output line lists the buckets in the order Cassandra
 * returns them, items by index, as "0,3;1;2".
 */
public class BucketsOracle
{
    public static void main(String[] args) throws Exception
    {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null; )
        {
            String[] f = line.trim().split(" ");
            double high = Double.parseDouble(f[0]);
            double low = Double.parseDouble(f[1]);
            long min = Long.parseLong(f[2]);
            List<Pair<Integer, Long>> files = new ArrayList<>();
            for (int i = 3; i < f.length; i++)
                files.add(Pair.create(i - 3, Long.parseLong(f[i])));
            List<List<Integer>> buckets = SizeTieredCompactionStrategy.getBuckets(files, high, low, min);
            StringBuilder b = new StringBuilder();
            for (List<Integer> bucket : buckets)
            {
                if (b.length() > 0)
                    b.append(';');
                for (int j = 0; j < bucket.size(); j++)
                {
                    if (j > 0)
                        b.append(',');
                    b.append(bucket.get(j));
                }
            }
            out.append(b).append('\n');
        }
        System.out.print(out);
    }
}
