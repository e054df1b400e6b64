package dev.verificationservice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.bouncycastle.bcpg.ArmoredOutputStream;
import org.bouncycastle.bcpg.HashAlgorithmTags;
import org.bouncycastle.bcpg.PublicKeyPacket;
import org.bouncycastle.bcpg.SymmetricKeyAlgorithmTags;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPKeyPair;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPSecretKey;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPSignatureList;
import org.bouncycastle.openpgp.PGPUtil;
import org.bouncycastle.openpgp.jcajce.JcaPGPObjectFactory;
import org.bouncycastle.openpgp.operator.PGPDigestCalculator;
import org.bouncycastle.openpgp.operator.jcajce.JcaPGPContentSignerBuilder;
import org.bouncycastle.openpgp.operator.jcajce.JcaPGPContentVerifierBuilderProvider;
import org.bouncycastle.openpgp.operator.jcajce.JcaPGPDigestCalculatorProviderBuilder;
import org.bouncycastle.openpgp.operator.jcajce.JcaPGPKeyPair;
import org.bouncycastle.openpgp.operator.jcajce.JcePBESecretKeyEncryptorBuilder;
import org.junit.jupiter.api.Test;

/**
 * The release profile of docs/releasing.md on a copy of the checkout: its command as written there, with a
 * throwaway key, on the parent and the core (the smallest set that runs every step of the profile), makes the
 * bundle Central's Portal takes, every file signed with that key and checksummed; without the publisher's
 * properties the profile refuses to build and names each.
 */
class ReleaseProfileIT {

    private static final String PASSPHRASE = "throwaway passphrase";
    private static final String GROUP_PATH = "dev/verificationservice/";
    private static final List<String> PROPERTIES = List.of("release.scm.url", "release.developer.id",
            "release.developer.name", "release.developer.email");

    @Test
    void theDocumentedCommandMakesTheSignedBundle() throws Exception {
        Markdown releasing = Markdown.read(Markdown.ROOT.resolve("docs/releasing.md"));
        String command = releasing.blocks("sh").stream().map(Markdown.Block::text)
                .filter(text -> text.contains("-P release")).findFirst()
                .orElseThrow(() -> new AssertionError("docs/releasing.md shows no mvn -P release command"));
        KeyPair rsa = rsaKey();
        PGPKeyPair keyPair = new JcaPGPKeyPair(PublicKeyPacket.VERSION_4, PGPPublicKey.RSA_GENERAL, rsa, new Date());
        Path checkout = MavenProjects.checkout();

        // The parent and the core only, and nothing written to the local repository other builds share.
        MavenProjects.bash(checkout, Map.of("MAVEN_GPG_KEY", armoredSecretKey(keyPair), "MAVEN_GPG_PASSPHRASE",
                PASSPHRASE), command.strip() + " -pl core,release -am -Dmaven.install.skip=true")
                .succeeded("the release command of docs/releasing.md");

        Map<String, byte[]> bundle = unzip(checkout.resolve("target/release/central-bundle.zip"));
        String version = MavenProjects.VERSION;
        String parent = GROUP_PATH + "verification-parent/" + version + "/verification-parent-" + version;
        String core = GROUP_PATH + "verification-core/" + version + "/verification-core-" + version;
        List<String> artifacts = List.of(parent + ".pom", core + ".pom", core + ".jar", core + "-sources.jar",
                core + "-javadoc.jar");
        for (String artifact : artifacts) {
            assertThat(bundle).as("the bundle's files").containsKey(artifact);
            byte[] content = bundle.get(artifact);
            assertThat(verifies(keyPair.getPublicKey(), bundle.get(artifact + ".asc"), content))
                    .as("the signature of %s, with the throwaway key", artifact).isTrue();
            assertThat(new String(bundle.get(artifact + ".md5"), StandardCharsets.US_ASCII).strip())
                    .isEqualTo(hex("MD5", content));
            assertThat(new String(bundle.get(artifact + ".sha1"), StandardCharsets.US_ASCII).strip())
                    .isEqualTo(hex("SHA-1", content));
        }
        assertThat(verifies(keyPair.getPublicKey(), bundle.get(core + ".jar.asc"), bundle.get(core + ".pom")))
                .as("a signature does not verify other content").isFalse();
        assertThat(bundle.keySet()).as("nothing but the published modules' files")
                .allMatch(name -> name.startsWith(parent) || name.startsWith(core))
                .noneMatch(name -> name.contains("maven-metadata"));
        assertThat(entries(bundle.get(core + "-sources.jar"))).contains("dev/verificationservice/Verification.java");
        assertThat(entries(bundle.get(core + "-javadoc.jar"))).contains("index.html");
        String pom = new String(bundle.get(core + ".pom"), StandardCharsets.UTF_8);
        assertThat(pom).as("the published POM carries the values given, not the properties")
                .contains("<url>https://github.com/OWNER/verification-service</url>")
                .contains("<connection>scm:git:https://github.com/OWNER/verification-service.git</connection>")
                .contains("<id>OWNER</id>", "<name>Your Name</name>", "<email>you@example.com</email>")
                .doesNotContain("${release.");
    }

    @Test
    void withoutThePublishersPropertiesTheProfileRefusesNamingEach() {
        MavenProjects.Build refused = MavenProjects.mvn(MavenProjects.checkout(), "-P", "release", "validate", "-N");

        assertThat(refused.exitCode()).as("the release profile without properties; it printed:%n%s",
                refused.output()).isNotZero();
        for (String property : PROPERTIES) {
            assertThat(refused.output()).contains("Set -D" + property);
        }
    }

    private static KeyPair rsaKey() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    /** The key as MAVEN_GPG_KEY takes it: an armoured, passphrase-protected secret key with one user id. */
    private static String armoredSecretKey(PGPKeyPair keyPair) throws PGPException, IOException {
        PGPDigestCalculator sha1 = new JcaPGPDigestCalculatorProviderBuilder().build().get(HashAlgorithmTags.SHA1);
        PGPSecretKey secret = new PGPSecretKey(PGPSignature.POSITIVE_CERTIFICATION, keyPair,
                "Throwaway release key <throwaway@example.com>", sha1, null, null,
                new JcaPGPContentSignerBuilder(keyPair.getPublicKey().getAlgorithm(), HashAlgorithmTags.SHA256),
                new JcePBESecretKeyEncryptorBuilder(SymmetricKeyAlgorithmTags.AES_256, sha1)
                        .setProvider(new BouncyCastleProvider()).build(PASSPHRASE.toCharArray()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ArmoredOutputStream armored = new ArmoredOutputStream(out)) {
            secret.encode(armored);
        }
        return out.toString(StandardCharsets.US_ASCII);
    }

    private static boolean verifies(PGPPublicKey key, byte[] armoredSignature, byte[] content) throws Exception {
        assertThat(armoredSignature).as("a signature").isNotNull();
        try (InputStream in = PGPUtil.getDecoderStream(new ByteArrayInputStream(armoredSignature))) {
            PGPSignature signature = ((PGPSignatureList) new JcaPGPObjectFactory(in).nextObject()).get(0);
            signature.init(new JcaPGPContentVerifierBuilderProvider().setProvider(new BouncyCastleProvider()), key);
            signature.update(content);
            return signature.verify();
        }
    }

    private static Map<String, byte[]> unzip(Path zip) throws IOException {
        assertThat(zip).as("the bundle").exists();
        return unzip(Files.readAllBytes(zip));
    }

    private static Map<String, byte[]> unzip(byte[] zip) throws IOException {
        Map<String, byte[]> files = new HashMap<>();
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                if (!entry.isDirectory()) {
                    files.put(entry.getName(), in.readAllBytes());
                }
            }
        }
        return files;
    }

    private static java.util.Set<String> entries(byte[] jar) throws IOException {
        return unzip(jar).keySet();
    }

    private static String hex(String algorithm, byte[] content) throws GeneralSecurityException {
        byte[] digest = MessageDigest.getInstance(algorithm).digest(content);
        return String.format("%0" + (digest.length * 2) + "x", new BigInteger(1, digest));
    }
}
