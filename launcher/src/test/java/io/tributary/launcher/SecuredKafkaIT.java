package io.tributary.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.bronze.BronzeFixture;
import io.tributary.bronze.BronzeFixture.Sent;
import io.tributary.bronze.BronzeIngestIT;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.testing.SharedSpark;
import io.tributary.localstack.LocalKafkaBroker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Bronze against a broker that takes clients only over SASL_SSL (SCRAM-SHA-512, a certificate made by keytool here)
 * and authorizes them with ACLs, the credentials coming from the environment as the README shows: the right ones
 * load every record; a wrong password and a missing ACL fail fast with one clear line and exit code 1; and no
 * password, in any form, appears in what any run printed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(SharedSpark.class)
class SecuredKafkaIT {
  private static final String PASSWORD = "s3cret-Scram-7d1e";
  private static final String OUTSIDER_PASSWORD = "0utsider-Pass-93ab";
  private static final String STORE_PASSWORD = "st0re-Pass-1c5f";

  private Path home;
  private LocalKafkaBroker broker;
  private int securedPort;
  private Path truststore;

  @BeforeAll
  void startASecuredBroker() throws Exception {
    home = Files.createTempDirectory("tributary-secured-kafka-");
    Path keystore = home.resolve("broker.p12");
    truststore = home.resolve("truststore.p12");
    keytool("-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
        "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-storetype", "PKCS12", "-keystore",
        keystore.toString(), "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD);
    Path certificate = home.resolve("broker.crt");
    keytool("-exportcert", "-rfc", "-alias", "broker", "-keystore", keystore.toString(), "-storepass",
        STORE_PASSWORD, "-file", certificate.toString());
    keytool("-importcert", "-noprompt", "-alias", "broker", "-file", certificate.toString(), "-storetype", "PKCS12",
        "-keystore", truststore.toString(), "-storepass", STORE_PASSWORD);

    securedPort = freePort();
    // Clients reach the broker over SASL_SSL only; the plaintext listener (the test's own admin and producer, as
    // ANONYMOUS) and the controller are the broker's internals here.
    Map<String, String> settings = Map.ofEntries(
        Map.entry("listeners", "PLAINTEXT://127.0.0.1:{port},SASL_SSL://127.0.0.1:" + securedPort
            + ",CONTROLLER://127.0.0.1:{controller-port}"),
        Map.entry("advertised.listeners", "PLAINTEXT://127.0.0.1:{port},SASL_SSL://127.0.0.1:" + securedPort),
        Map.entry("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL"),
        Map.entry("sasl.enabled.mechanisms", "SCRAM-SHA-512"),
        Map.entry("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required;"),
        Map.entry("ssl.keystore.type", "PKCS12"),
        Map.entry("ssl.keystore.location", keystore.toString()),
        Map.entry("ssl.keystore.password", STORE_PASSWORD),
        Map.entry("ssl.key.password", STORE_PASSWORD),
        Map.entry("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"),
        Map.entry("super.users", "User:ANONYMOUS"),
        Map.entry("allow.everyone.if.no.acl.found", "false"),
        Map.entry("log.retention.ms", "-1"));
    broker = LocalKafkaBroker.start(home.resolve("kafka"), settings);

    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      admin.alterUserScramCredentials(List.of(
          new UserScramCredentialUpsertion("bronze", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096),
              PASSWORD),
          new UserScramCredentialUpsertion("outsider",
              new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), OUTSIDER_PASSWORD))).all().get();
      // What bronze needs, and no more: read and describe its topics, and the consumer groups of Spark's source.
      List<AclBinding> acls = new ArrayList<>();
      for (AclOperation operation : List.of(AclOperation.READ, AclOperation.DESCRIBE,
          AclOperation.DESCRIBE_CONFIGS)) {
        acls.add(allow("bronze", new ResourcePattern(ResourceType.TOPIC, "t", PatternType.PREFIXED), operation));
      }
      acls.add(allow("bronze", new ResourcePattern(ResourceType.GROUP, "spark-kafka-source", PatternType.PREFIXED),
          AclOperation.READ));
      acls.add(allow("outsider", new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
          AclOperation.DESCRIBE));
      admin.createAcls(acls).all().get();
    }
  }

  @AfterAll
  void stopTheBroker() {
    if (broker != null) {
      broker.stop();
    }
  }

  @Test
  void bronzeLoadsEveryRecordWithTheRightCredentialsAndPrintsNoSecret(SparkSession spark) throws Exception {
    Path dir = Files.createDirectories(home.resolve("right"));
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(2, "orders");
    List<Sent> sent = fixture.sendSimple("orders", 300, 0);
    Path configFile = writeConfig(fixture, dir);

    Run bronze = run(dir, PASSWORD, "bronze", "--config", configFile.toString(), "--once");
    assertThat(bronze.exitCode()).as(bronze.output()).isZero();
    BronzeIngestIT.assertLandedExactly(sent, fixture.read(spark, TributaryConfig.load(configFile), "orders"));

    Run status = run(dir, PASSWORD, "status", "--config", configFile.toString());
    assertThat(status.exitCode()).as(status.output()).isZero();
    assertThat(status.output()).contains("bronze-orders");
    assertNoSecret(bronze.output() + status.output());
  }

  @Test
  void aWrongPasswordFailsFastWithOneClearLine() throws Exception {
    Path dir = Files.createDirectories(home.resolve("wrong-password"));
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(1, "orders");
    fixture.sendSimple("orders", 10, 0);
    Path configFile = writeConfig(fixture, dir);

    long started = System.nanoTime();
    Run bronze = run(dir, "not-" + PASSWORD, "bronze", "--config", configFile.toString(), "--once");
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
    assertThat(bronze.exitCode()).as(bronze.output()).isEqualTo(Tributary.FAILED);
    assertThat(bronze.output()).contains("refused the connection").contains("Authentication failed")
        .contains("tributary.kafka.options");
    assertThat(seconds).as("ended without retrying for minutes").isLessThan(60);
    assertNoSecret(bronze.output());
    assertThat(bronze.output()).doesNotContain("not-" + PASSWORD);
  }

  @Test
  void aMissingAclFailsFastNamingTheTopic() throws Exception {
    Path dir = Files.createDirectories(home.resolve("no-acl"));
    BronzeFixture fixture = new BronzeFixture(broker, dir);
    fixture.createTopics(1, "orders");
    fixture.sendSimple("orders", 10, 0);
    Path configFile = writeConfig(fixture, dir);
    Files.writeString(configFile, Files.readString(configFile).replace("username=\\\"bronze\\\"",
        "username=\\\"outsider\\\""));

    long started = System.nanoTime();
    Run bronze = run(dir, OUTSIDER_PASSWORD, "bronze", "--config", configFile.toString(), "--once");
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
    assertThat(bronze.exitCode()).as(bronze.output()).isEqualTo(Tributary.FAILED);
    assertThat(bronze.output()).contains(fixture.topic("orders")).contains("not authorized");
    assertThat(seconds).as("ended without retrying for minutes").isLessThan(60);
    assertThat(bronze.output()).doesNotContain(OUTSIDER_PASSWORD);
    assertNoSecret(bronze.output());
  }

  /**
   * The config a user writes for a secured cluster: the password and the truststore's password come from the
   * environment ({@code ${?VAR}}), never from the file.
   */
  private Path writeConfig(BronzeFixture fixture, Path dir) throws IOException {
    String secured = "tributary.kafka {\n"
        + "  bootstrap-servers = \"127.0.0.1:" + securedPort + "\"\n"
        + "  options {\n"
        + "    \"security.protocol\" = \"SASL_SSL\"\n"
        + "    \"sasl.mechanism\" = \"SCRAM-SHA-512\"\n"
        + "    \"sasl.jaas.config\" = \"org.apache.kafka.common.security.scram.ScramLoginModule required"
        + " username=\\\"bronze\\\" password=\\\"\"${?KAFKA_PASSWORD}\"\\\";\"\n"
        + "    \"ssl.truststore.type\" = \"PKCS12\"\n"
        + "    \"ssl.truststore.location\" = \"" + truststore + "\"\n"
        + "    \"ssl.truststore.password\" = ${?KAFKA_TRUSTSTORE_PASSWORD}\n"
        + "  }\n"
        + "}\n";
    Path file = dir.resolve("secured.conf");
    Files.writeString(file, fixture.hocon(Map.of("orders", "orders"), secured));
    return file;
  }

  private record Run(int exitCode, String output) {}

  private Run run(Path dir, String password, String... args) throws Exception {
    Path log = dir.resolve("run-" + System.nanoTime() + ".log");
    // Everything at INFO, Kafka's clients printing their settings included: the more a run prints, the more
    // places a secret could show.
    Path verbose = home.resolve("log4j2-info.properties");
    Files.writeString(verbose, String.join("\n", "status = warn", "appender.console.type = Console",
        "appender.console.name = console", "appender.console.layout.type = PatternLayout",
        "appender.console.layout.pattern = %p %c{1}: %m%n", "rootLogger.level = info",
        "rootLogger.appenderRef.console.ref = console", ""));
    Process process = ChildProcess.start(System.getProperty("java.class.path"),
        List.of("-Dlog4j2.configurationFile=" + verbose), Map.of("KAFKA_PASSWORD", password,
            "KAFKA_TRUSTSTORE_PASSWORD", STORE_PASSWORD), log, args);
    assertThat(process.waitFor(4, TimeUnit.MINUTES)).as("ended in time").isTrue();
    return new Run(process.exitValue(), Files.readString(log));
  }

  /** None of the secrets, whole or as the JAAS line that holds one, in what a run printed. */
  private static void assertNoSecret(String output) {
    assertThat(output).doesNotContain(PASSWORD).doesNotContain(STORE_PASSWORD).doesNotContain("password=\"");
  }

  private static AclBinding allow(String user, ResourcePattern resource, AclOperation operation) {
    return new AclBinding(resource, new AccessControlEntry("User:" + user, "*", operation,
        AclPermissionType.ALLOW));
  }

  private static void keytool(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool")
        .toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("keytool %s: %s", args[0], output).isZero();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress("127.0.0.1", 0));
      return socket.getLocalPort();
    }
  }
}
