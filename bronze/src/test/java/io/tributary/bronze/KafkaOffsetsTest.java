package io.tributary.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class KafkaOffsetsTest {

  @Test
  void readsAndWritesSparksJsonInPartitionOrder() {
    KafkaOffsets offsets = KafkaOffsets.parse("{\"b\":{\"10\":5,\"2\":7},\"a\":{\"0\":1}}");
    assertThat(offsets.offsets()).containsExactly(Map.entry(new TopicPartition("a", 0), 1L),
        Map.entry(new TopicPartition("b", 2), 7L), Map.entry(new TopicPartition("b", 10), 5L));
    assertThat(offsets.json()).isEqualTo("{\"a\":{\"0\":1},\"b\":{\"2\":7,\"10\":5}}");
    assertThat(KafkaOffsets.parse(offsets.json())).isEqualTo(offsets);
  }

  @Test
  void advancesOnlyWhereTheLaterOffsetIsHigher() {
    KafkaOffsets table = KafkaOffsets.parse("{\"t\":{\"0\":100,\"1\":50}}");
    assertThat(table.advancedTo(KafkaOffsets.parse("{\"t\":{\"0\":90,\"2\":3}}")))
        .isEqualTo(KafkaOffsets.parse("{\"t\":{\"0\":100,\"1\":50,\"2\":3}}"));
    assertThat(table.overriddenBy(KafkaOffsets.parse("{\"t\":{\"0\":90}}")))
        .isEqualTo(KafkaOffsets.parse("{\"t\":{\"0\":90,\"1\":50}}"));
  }

  @Test
  void refusesWhatIsNotOffsetsPerPartition() {
    assertThatThrownBy(() -> KafkaOffsets.parse("{\"t\":{\"0\":1}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("not JSON: {\"t\":{\"0\":1}");
    assertThatThrownBy(() -> KafkaOffsets.parse("[1]"))
        .hasMessage("not a JSON object of offsets per topic: [1]");
    assertThatThrownBy(() -> KafkaOffsets.parse("{\"t\":3}"))
        .hasMessage("topic t does not map partitions to offsets: {\"t\":3}");
    assertThatThrownBy(() -> KafkaOffsets.parse("{\"t\":{\"x\":3}}"))
        .hasMessage("partition x of t is not a number: {\"t\":{\"x\":3}}");
    assertThatThrownBy(() -> KafkaOffsets.parse("{\"t\":{\"0\":\"3\"}}"))
        .hasMessage("offset of t partition 0 is not a number: {\"t\":{\"0\":\"3\"}}");
  }
}
