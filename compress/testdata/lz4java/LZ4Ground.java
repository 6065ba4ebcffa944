// LZ4Ground compresses a batch of inputs with an lz4-java LZ4Compressor the
// way Cassandra's org.apache.cassandra.io.compress.LZ4Compressor does
// (LZ4Factory.fastestInstance().fastCompressor(), direct ByteBuffers, the
// output limited to maxCompressedLength of the chunk), so that castable's
// tests can compare their LZ4 encoder with the one a Cassandra release
// ships. It is castable's own test helper, compiled by the Go test against
// the lz4-java jar under test.
//
// usage: java -cp lz4.jar:DIR LZ4Ground INSTANCE IN OUT
//
// INSTANCE is fastest (what Cassandra calls), JNI, JavaUnsafe or JavaSafe.
// IN holds records of a big-endian u32 length and that many bytes; OUT
// receives one record per input: the raw LZ4 block. The factory fastest
// picks is printed to stderr as "fastest=NAME".

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.nio.ByteBuffer;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

public final class LZ4Ground {
    private static LZ4Factory factory(String name) {
        switch (name) {
            case "fastest": return LZ4Factory.fastestInstance();
            case "JNI": return LZ4Factory.nativeInstance();
            case "JavaUnsafe": return LZ4Factory.unsafeInstance();
            case "JavaSafe": return LZ4Factory.safeInstance();
            default: throw new IllegalArgumentException("unknown instance " + name);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: LZ4Ground fastest|JNI|JavaUnsafe|JavaSafe IN OUT");
            System.exit(2);
        }
        System.err.println("fastest=" + LZ4Factory.fastestInstance());
        LZ4Compressor c = factory(args[0]).fastCompressor();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(args[1]), 1 << 20));
             DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(args[2]), 1 << 20))) {
            byte[] buf = new byte[0];
            byte[] res = new byte[0];
            while (true) {
                int n;
                try {
                    n = in.readInt();
                } catch (EOFException e) {
                    break;
                }
                if (buf.length < n) buf = new byte[n];
                in.readFully(buf, 0, n);
                // Cassandra sizes the output for the chunk length (64 KiB by
                // default), whatever the length of this chunk.
                int max = c.maxCompressedLength(Math.max(n, 65536));
                ByteBuffer src = ByteBuffer.allocateDirect(Math.max(n, 1));
                src.put(buf, 0, n);
                src.flip();
                ByteBuffer dst = ByteBuffer.allocateDirect(max);
                c.compress(src, dst);
                dst.flip();
                int m = dst.remaining();
                if (res.length < m) res = new byte[m];
                dst.get(res, 0, m);
                out.writeInt(m);
                out.write(res, 0, m);
            }
        }
    }
}
