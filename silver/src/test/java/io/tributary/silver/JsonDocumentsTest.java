package io.tributary.silver;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonDocumentsTest {

  private static String problem(String value) {
    return JsonDocuments.problem(value.getBytes(UTF_8));
  }

  @Test
  void oneDocumentOfAnyKindWithSurroundingWhitespacePasses() {
    assertThat(problem("{\"a\":[1,{\"b\":null}]}")).isNull();
    assertThat(problem(" \n{\"a\":\"x\"}\r\n ")).isNull();
    assertThat(problem("[1,2]")).isNull();
    assertThat(problem("42")).isNull();
    assertThat(JsonDocuments.problem(null)).as("a tombstone is not a document problem").isNull();
  }

  @Test
  void everyByteAfterTheFirstDocumentIsAccountedFor() {
    assertThat(problem("{\"a\":1}{\"a\":2}")).isEqualTo("value holds more than one JSON document");
    assertThat(problem("{\"a\":1}\n{\"a\":2}")).isEqualTo("value holds more than one JSON document");
    assertThat(problem("{\"a\":1}[2]")).isEqualTo("value holds more than one JSON document");
    assertThat(problem("{\"a\":1} 7")).isEqualTo("value has text after its JSON document");
    assertThat(problem("{\"a\":1}garbage")).isEqualTo("value has text after its JSON document");
    assertThat(problem("{\"a\":1}}")).isEqualTo("value has text after its JSON document");
  }

  @Test
  void onlyStrictJsonIsJson() {
    assertThat(problem("{'a':1}")).isEqualTo("value is not valid JSON");
    assertThat(problem("{a:1}")).isEqualTo("value is not valid JSON");
    assertThat(problem("{\"a\":NaN}")).isEqualTo("value is not valid JSON");
    assertThat(problem("{\"a\":01}")).isEqualTo("value is not valid JSON");
    assertThat(problem("{\"a\":1,}")).isEqualTo("value is not valid JSON");
    assertThat(problem("/* c */ {\"a\":1}")).isEqualTo("value is not valid JSON");
    assertThat(problem("{\"a\":1")).isEqualTo("value is not valid JSON");
    assertThat(problem("")).isEqualTo("value is empty");
    assertThat(problem("   ")).isEqualTo("value is empty");
  }
}
