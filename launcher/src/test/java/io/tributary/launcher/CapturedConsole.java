package io.tributary.launcher;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a command line printed: System.out and System.err are captured for each test and put back after it. Register
 * it as a field: {@code @RegisterExtension final CapturedConsole console = new CapturedConsole();}.
 */
public final class CapturedConsole implements BeforeEachCallback, AfterEachCallback {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private PrintStream originalOut;
  private PrintStream originalErr;

  @Override
  public void beforeEach(ExtensionContext context) {
    originalOut = System.out;
    originalErr = System.err;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    System.setOut(originalOut);
    System.setErr(originalErr);
  }

  /** Everything printed to System.out so far (since the last {@link #forgetOut()}). */
  public String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  /** Everything printed to System.err, trimmed. */
  public String err() {
    return err.toString(StandardCharsets.UTF_8).trim();
  }

  public void forgetOut() {
    out.reset();
  }
}
