package dev.verificationservice.server.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import dev.verificationservice.Verification;
import dev.verificationservice.codes.ArchitectureViolationFixture;
import dev.verificationservice.codes.PredictableRandomFixture;
import dev.verificationservice.codes.TestSupportViolationFixture;
import dev.verificationservice.codes.ThreadsInDomainFixture;
import dev.verificationservice.console.ConsoleConfiguration;
import dev.verificationservice.console.ServerInConsoleFixture;
import dev.verificationservice.delivery.SpringInDeliveryFixture;
import dev.verificationservice.delivery.messages.MessageTemplates;
import dev.verificationservice.server.VerificationServerApplication;
import dev.verificationservice.spring.core.VerificationAutoConfiguration;
import dev.verificationservice.store.dynamodb.DynamoDbVerificationStore;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The direction of every dependency between the modules, pinned:
 * <pre>
 * server ──▶ console ──▶ starter ──▶ stores (sqlite, dynamodb) ──▶ table (single-table model) ──▶ core (domain + SPI)
 *    │          │           ├───────▶ delivery (texts, senders, key files; no Spring) ─────────────────▶ core
 *    └──────────┴───────────┴──────────────────────────────────────────────────────────────────▶ core
 * </pre>
 * The domain knows neither the table model nor any store, nor the delivery module, nor Spring's wiring; the
 * starter and the server know the stores only to build them and never the table model; no store knows the
 * delivery module, the starter or the server; the delivery module knows only the core, and never Spring, so an
 * application without Spring can use it; the starter, which host applications embed, knows nothing of the
 * console or the server; the console (the support pages) knows nothing of the server, which reaches it through the
 * interface the console declares, and nothing below the console knows it; the packages of the core, of the delivery
 * module and of the starter form no cycle; no product class uses the test-support module (its poms take it in test
 * scope only: {@link TestScopeOnlyTest}).
 *
 * <p>Each module is recognised by its packages, read off the module's own classes (its jar or classes
 * directory), so a package added to a module is covered without editing this test.
 */
class ArchitectureTest {

    private static final JavaClasses PRODUCTION = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.verificationservice");

    private static final Set<String> CORE = packagesOfModule(Verification.class);
    private static final Set<String> TABLE = packagesOfModule(tableModel());
    private static final Set<String> STORES = union(packagesOfModule(SqliteVerificationStore.class),
            packagesOfModule(DynamoDbVerificationStore.class));
    private static final Set<String> DELIVERY = packagesOfModule(MessageTemplates.class);
    private static final Set<String> STARTER = packagesOfModule(VerificationAutoConfiguration.class);
    private static final Set<String> CONSOLE = packagesOfModule(ConsoleConfiguration.class);
    private static final Set<String> SERVER = packagesOfModule(VerificationServerApplication.class);
    /** Every module that ships in the server's jar. */
    private static final Set<String> PRODUCT = union(CORE, union(TABLE, union(STORES, union(DELIVERY, union(STARTER,
            union(CONSOLE, SERVER))))));

    static final ArchRule DOMAIN_KNOWS_NO_TABLE_MODEL_AND_NO_STORE = noClasses()
            .that(resideIn("are in the domain (verification-core)", CORE))
            .should().dependOnClassesThat(resideIn("are in the table model, a store, the delivery module, the starter, "
                    + "the console or the server", union(TABLE, union(STORES, union(DELIVERY, union(STARTER,
                    union(CONSOLE, SERVER)))))))
            .because("the domain is the centre: the single-table model and the stores are built around it");

    static final ArchRule SERVER_KNOWS_NO_TABLE_MODEL = noClasses()
            .that(resideIn("are in the server, the console or the starter", union(SERVER, union(CONSOLE, STARTER))))
            .should().dependOnClassesThat(resideIn("are in the single-table model (verification-table)", TABLE))
            .because("the HTTP API speaks the domain's records; how items are keyed is the stores' business");

    static final ArchRule STORES_KNOW_NO_SERVER = noClasses()
            .that(resideIn("are in a store or the table model", union(STORES, TABLE)))
            .should().dependOnClassesThat(resideIn("are in the delivery module, the starter, the console or the server",
                    union(DELIVERY, union(STARTER, union(CONSOLE, SERVER)))))
            .because("a store is a library that any host application can use");

    static final ArchRule DELIVERY_KNOWS_ONLY_THE_CORE = noClasses()
            .that(resideIn("are in the delivery module (verification-delivery)", DELIVERY))
            .should().dependOnClassesThat(resideIn("are in the table model, a store, the starter, the console or the "
                    + "server", union(TABLE, union(STORES, union(STARTER, union(CONSOLE, SERVER))))))
            .because("the delivery module is a library beside the stores: the starter wires both");

    static final ArchRule DELIVERY_KNOWS_NO_SPRING = noClasses()
            .that(resideIn("are in the delivery module (verification-delivery)", DELIVERY))
            .should().dependOnClassesThat(resideInAPackage("org.springframework.."))
            .because("an application without Spring sends its codes with the delivery module; the starter wires it");

    static final ArchRule STARTER_KNOWS_NO_SERVER = noClasses()
            .that(resideIn("are in the starter", STARTER))
            .should().dependOnClassesThat(resideIn("are in the console or the server", union(CONSOLE, SERVER)))
            .because("host applications embed the starter without the server: the wiring exists once, below the server");

    static final ArchRule CONSOLE_KNOWS_NO_SERVER = noClasses()
            .that(resideIn("are in the console", CONSOLE))
            .should().dependOnClassesThat(resideIn("are in the server", SERVER))
            .because("the console is a layer below the server: what it needs of it, it declares (ConsoleHost)");

    static final ArchRule PRODUCT_KNOWS_NO_TEST_SUPPORT = noClasses()
            .that(resideIn("are in a product module", PRODUCT))
            .should().dependOnClassesThat().resideInAPackage("dev.verificationservice.testsupport..")
            .because("test support (the hand-moved clock, dynalite, the fault proxy) is never in a product jar");

    /** Where a random value is no secret, so a predictable generator is allowed: a counter's shard, a backoff. */
    private static final Set<String> RANDOM_WITHOUT_SECRETS = Set.of("dev.verificationservice.ratelimit.RateLimiter",
            "dev.verificationservice.store.dynamodb.TransactionConflicts");

    static final ArchRule SECRETS_COME_FROM_SECURE_RANDOM = noClasses()
            .that(resideIn("are in a product module", PRODUCT))
            .and(DescribedPredicate.describe("draw no value that is not a secret", type ->
                    !RANDOM_WITHOUT_SECRETS.contains(type.getName().replaceFirst("\\$.*", ""))))
            .should().dependOnClassesThat(DescribedPredicate.describe("are a predictable random generator",
                    type -> Set.of("java.util.Random", "java.util.SplittableRandom",
                            "java.util.concurrent.ThreadLocalRandom").contains(type.getName())))
            .orShould().callMethod(Math.class, "random")
            .orShould().callMethod(StrictMath.class, "random")
            .because("codes, recovery codes, TOTP seeds, device secrets and keys must be unguessable: SecureRandom");

    /** The packages of the domain's services: they say which calls are independent, never how they run. */
    private static final Set<String> DOMAIN_SERVICES = Set.of("codes", "devices", "totp", "recovery", "attempts",
            "ratelimit", "audit", "operator", "idempotency").stream()
            .map(name -> "dev.verificationservice." + name).collect(Collectors.toUnmodifiableSet());

    static final ArchRule DOMAIN_SERVICES_RUN_NO_THREADS = noClasses()
            .that(resideIn("are in a domain service's package", DOMAIN_SERVICES))
            .should().dependOnClassesThat(DescribedPredicate.describe("run calls on other threads (an executor, a "
                    + "thread factory, a future)", type -> type.isAssignableTo(Executor.class)
                    || type.isAssignableTo(ThreadFactory.class) || type.isAssignableTo(Future.class)
                    || type.isAssignableTo(CompletionStage.class) || type.isEquivalentTo(Executors.class)))
            .orShould().callConstructorWhere(DescribedPredicate.describe("make a thread",
                    call -> call.getTargetOwner().isAssignableTo(Thread.class)))
            .orShould().callMethodWhere(DescribedPredicate.describe("start a thread",
                    call -> call.getTargetOwner().isAssignableTo(Thread.class) && call.getName().equals("start")))
            .because("the domain hands independent calls to the store as one call (UnitOfWork#together), and the "
                    + "store decides how they run: in parallel on DynamoDB, on the writer's thread in an embedded unit");

    static final ArchRule STARTER_PACKAGES_FORM_NO_CYCLE = slices()
            .assignedFrom(packagesOf("the starter", STARTER))
            .should().beFreeOfCycles();

    static final ArchRule DELIVERY_PACKAGES_FORM_NO_CYCLE = slices()
            .assignedFrom(packagesOf("the delivery module", DELIVERY))
            .should().beFreeOfCycles();

    static final ArchRule CORE_PACKAGES_FORM_NO_CYCLE = slices()
            .assignedFrom(packagesOf("the core", CORE))
            .should().beFreeOfCycles();

    static final ArchRule MODEL_AND_STORE_PACKAGES_FORM_NO_CYCLE = slices()
            .assignedFrom(packagesOf("the table model and the stores", union(TABLE, STORES)))
            .should().beFreeOfCycles();

    @Test
    void theDomainKnowsNoTableModelAndNoStore() {
        DOMAIN_KNOWS_NO_TABLE_MODEL_AND_NO_STORE.check(PRODUCTION);
    }

    @Test
    void theServerKnowsNoTableModel() {
        SERVER_KNOWS_NO_TABLE_MODEL.check(PRODUCTION);
    }

    @Test
    void noStoreKnowsTheServer() {
        STORES_KNOW_NO_SERVER.check(PRODUCTION);
    }

    @Test
    void theStarterKnowsNoServer() {
        STARTER_KNOWS_NO_SERVER.check(PRODUCTION);
    }

    @Test
    void theConsoleKnowsNoServer() {
        CONSOLE_KNOWS_NO_SERVER.check(PRODUCTION);
    }

    @Test
    void noProductClassUsesTheTestSupport() {
        PRODUCT_KNOWS_NO_TEST_SUPPORT.check(PRODUCTION);
    }

    @Test
    void theDeliveryModuleKnowsOnlyTheCore() {
        DELIVERY_KNOWS_ONLY_THE_CORE.check(PRODUCTION);
    }

    @Test
    void theDeliveryModuleKnowsNoSpring() {
        DELIVERY_KNOWS_NO_SPRING.check(PRODUCTION);
    }

    @Test
    void everySecretComesFromSecureRandom() {
        SECRETS_COME_FROM_SECURE_RANDOM.check(PRODUCTION);
    }

    @Test
    void theDomainServicesRunNoThreads() {
        DOMAIN_SERVICES_RUN_NO_THREADS.check(PRODUCTION);
    }

    @Test
    void theDeliveryPackagesFormNoCycle() {
        DELIVERY_PACKAGES_FORM_NO_CYCLE.check(PRODUCTION);
    }

    @Test
    void theStarterPackagesFormNoCycle() {
        STARTER_PACKAGES_FORM_NO_CYCLE.check(PRODUCTION);
    }

    @Test
    void theCorePackagesFormNoCycle() {
        CORE_PACKAGES_FORM_NO_CYCLE.check(PRODUCTION);
    }

    @Test
    void theModelAndStorePackagesFormNoCycle() {
        MODEL_AND_STORE_PACKAGES_FORM_NO_CYCLE.check(PRODUCTION);
    }

    @Test
    void theModulesWereFound() {
        assertThat(CORE).contains("dev.verificationservice.codes", "dev.verificationservice.store");
        assertThat(TABLE).containsExactly("dev.verificationservice.table");
        assertThat(STORES).contains("dev.verificationservice.store.sqlite", "dev.verificationservice.store.dynamodb");
        assertThat(DELIVERY).contains("dev.verificationservice.delivery", "dev.verificationservice.delivery.messages",
                "dev.verificationservice.delivery.email", "dev.verificationservice.delivery.sms",
                "dev.verificationservice.keys");
        assertThat(STARTER).contains("dev.verificationservice.spring", "dev.verificationservice.spring.core",
                "dev.verificationservice.spring.store");
        assertThat(CONSOLE).containsExactly("dev.verificationservice.console");
        assertThat(SERVER).contains("dev.verificationservice.server.codes");
        assertThat(PRODUCTION.containPackage("dev.verificationservice.testsupport.time"))
                .as("the test support is on the class path, so the rule against it can fail").isTrue();
    }

    /** The rule catches what it is there for: a domain class in a core package that imports the table model. */
    @Test
    void aDomainClassImportingTheTableModelBreaksTheBuild() {
        JavaClasses withViolation = new ClassFileImporter().importClasses(ArchitectureViolationFixture.class);

        assertThat(DOMAIN_KNOWS_NO_TABLE_MODEL_AND_NO_STORE.evaluate(withViolation).hasViolation()).isTrue();
    }

    /** And a domain class that takes the tests' clock from the test support. */
    @Test
    void aDomainClassUsingTheTestSupportBreaksTheBuild() {
        JavaClasses withViolation = new ClassFileImporter().importClasses(TestSupportViolationFixture.class);

        assertThat(PRODUCT_KNOWS_NO_TEST_SUPPORT.evaluate(withViolation).hasViolation()).isTrue();
    }

    /** The rule catches what it is there for: a console class that reaches into the server. */
    @Test
    void aConsoleClassUsingTheServerBreaksTheBuild() {
        JavaClasses withViolation = new ClassFileImporter().importClasses(ServerInConsoleFixture.class);

        assertThat(CONSOLE_KNOWS_NO_SERVER.evaluate(withViolation).hasViolation()).isTrue();
    }

    /** The rule catches what it is there for: a class in a delivery package that uses Spring. */
    @Test
    void aDeliveryClassUsingSpringBreaksTheBuild() {
        JavaClasses withViolation = new ClassFileImporter().importClasses(SpringInDeliveryFixture.class);

        assertThat(DELIVERY_KNOWS_NO_SPRING.evaluate(withViolation).hasViolation()).isTrue();
    }

    /** The rule catches what it is there for: a domain class that runs a call on a future or a thread. */
    @Test
    void aDomainClassRunningThreadsBreaksTheBuild() {
        JavaClasses withViolation = new ClassFileImporter().importClasses(ThreadsInDomainFixture.class);

        assertThat(DOMAIN_SERVICES_RUN_NO_THREADS.evaluate(withViolation).getFailureReport().getDetails())
                .anyMatch(line -> line.contains("CompletableFuture")).anyMatch(line -> line.contains("Thread.<init>"))
                .anyMatch(line -> line.contains("Thread.start"));
    }

    /** The rule catches what it is there for: a domain class that draws a code from java.util.Random. */
    @Test
    void aCodeFromAPredictableRandomBreaksTheBuild() {
        JavaClasses withViolation = new ClassFileImporter().importClasses(PredictableRandomFixture.class);

        assertThat(SECRETS_COME_FROM_SECURE_RANDOM.evaluate(withViolation).hasViolation()).isTrue();
    }

    private static Class<?> tableModel() {
        try {
            // By name: this test, like the server, must not compile against the table model.
            return Class.forName("dev.verificationservice.table.TableKeys");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the single-table model is not on the test classpath", e);
        }
    }

    /** The packages of the production classes that come from the same jar or directory as {@code member}. */
    private static Set<String> packagesOfModule(Class<?> member) {
        String location = locationOf(member);
        Set<String> packages = PRODUCTION.stream()
                .filter(type -> type.getSource().isPresent()
                        && type.getSource().get().getUri().toString().contains(location))
                .map(JavaClass::getPackageName)
                .collect(Collectors.toSet());
        if (packages.isEmpty()) {
            throw new IllegalStateException("no classes found for the module at " + location);
        }
        return packages;
    }

    private static String locationOf(Class<?> member) {
        try {
            // Compared as a path: a class in a jar has a jar: URI that holds the jar's path.
            return Path.of(member.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static DescribedPredicate<JavaClass> resideIn(String description, Set<String> packages) {
        return DescribedPredicate.describe(description, type -> packages.contains(type.getPackageName()));
    }

    private static SliceAssignment packagesOf(String description, Set<String> packages) {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass type) {
                return packages.contains(type.getPackageName())
                        ? SliceIdentifier.of(type.getPackageName()) : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "packages of " + description;
            }
        };
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).collect(Collectors.toUnmodifiableSet());
    }
}
