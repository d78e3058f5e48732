package cgtest;

import com.google.protobuf.ByteString;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/** The second process of the zero-copy GPU tests: runs consumer.py on a handle. */
final class Consumer {
    private final Process proc;
    private final BufferedReader in;
    private final PrintWriter out;
    /** First line the consumer printed: "READY", or "SKIP ..." when it cannot run. */
    final String greeting;

    Consumer(String script, ByteString handle, int w, int h, boolean flip) throws IOException {
        StringBuilder hex = new StringBuilder();
        for (byte b : handle.toByteArray()) hex.append(String.format("%02x", b & 0xff));
        String py = System.getenv().getOrDefault("CG_PYTHON", "python3");
        proc = new ProcessBuilder(py, script, hex.toString(), "" + w, "" + h, flip ? "--flip" : "--no-flip")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        in = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8));
        out = new PrintWriter(new OutputStreamWriter(proc.getOutputStream(), StandardCharsets.UTF_8), true);
        greeting = in.readLine();
    }

    /** Frame f is complete in the buffer: the consumer's verdict ("OK f" or "BAD f ..."). */
    String frame(int f) throws IOException {
        out.println("FRAME " + f);
        return in.readLine();
    }

    /** Ends the consumer; its exit status. */
    int finish() throws InterruptedException {
        out.println("DONE");
        return proc.waitFor();
    }
}
