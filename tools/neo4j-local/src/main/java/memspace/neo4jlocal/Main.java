package memspace.neo4jlocal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

/**
 * Embedded Neo4j 5.26 Community DBMS with its Bolt connector on 127.0.0.1, auth disabled.
 *
 * <pre>
 * usage: Main [--port N] [--data-dir DIR] [--pagecache SIZE]
 *   --port       Bolt port (default: env NEO4J_LOCAL_PORT, else 7687)
 *   --data-dir   used as the Neo4j home: stores go to DIR/data, Neo4j's debug.log to DIR/logs
 *                (default: env NEO4J_LOCAL_DATA_DIR, else tools/neo4j-local/data)
 *   --pagecache  page cache size, e.g. 256m, 1g (default: env NEO4J_LOCAL_PAGECACHE, else 256m)
 * </pre>
 *
 * Prints "NEO4J-LOCAL READY bolt://127.0.0.1:PORT" once the default database is available and
 * the Bolt port accepts connections. SIGTERM / SIGINT shut the DBMS down cleanly (shutdown hook),
 * so the store is never left needing recovery.
 */
public final class Main {
    private static final String HOST = "127.0.0.1";

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(env("NEO4J_LOCAL_PORT", "7687"));
        Path home = envPath("NEO4J_LOCAL_DATA_DIR");
        String pageCache = env("NEO4J_LOCAL_PAGECACHE", "256m");
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "--port" -> { port = Integer.parseInt(required(a, v)); i++; }
                case "--data-dir" -> { home = Path.of(required(a, v)); i++; }
                case "--pagecache" -> { pageCache = required(a, v); i++; }
                case "-h", "--help" -> { usage(); return; }
                default -> { System.err.println("unknown argument: " + a); usage(); System.exit(2); }
            }
        }
        if (home == null) {
            home = defaultHome();
        }
        home = home.toAbsolutePath().normalize();

        long started = System.nanoTime();
        System.out.printf("neo4j-local: starting Neo4j (home %s, bolt %s:%d, page cache %s)%n",
                home, HOST, port, pageCache);

        // The hook is registered before build() so a SIGTERM that arrives mid-startup still
        // waits for the DBMS and shuts it down cleanly instead of leaving a store to recover.
        AtomicReference<DatabaseManagementService> ref = new AtomicReference<>();
        CountDownLatch built = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                built.await(120, TimeUnit.SECONDS);
                DatabaseManagementService d = ref.get();
                if (d != null) {
                    System.out.println("neo4j-local: shutting down");
                    d.shutdown();
                    System.out.println("neo4j-local: stopped cleanly");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                stopped.countDown();
            }
        }, "neo4j-local-shutdown"));

        DatabaseManagementService dbms;
        try {
            DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home);
            // Settings of a neo4j.conf to try (e.g. an index's writer settings), read first so
            // that those below always hold.
            Path conf = envPath("NEO4J_LOCAL_CONF");
            if (conf != null) {
                System.out.println("neo4j-local: settings from " + conf);
                builder.loadPropertiesFromFile(conf);
            }
            dbms = builder
                    .setConfig(BoltConnector.enabled, true)
                    .setConfig(BoltConnector.listen_address, new SocketAddress(HOST, port))
                    // Plain Bolt (no TLS): loopback only, used by local tests.
                    .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                    .setConfig(HttpConnector.enabled, false)
                    .setConfig(GraphDatabaseSettings.auth_enabled, false)
                    // Modest memory: this runs on a 2-core box next to the test suite.
                    .setConfig(GraphDatabaseSettings.pagecache_memory, parseSize(pageCache))
                    // Keep transaction logs small; this is a scratch/test store.
                    .setConfig(GraphDatabaseSettings.keep_logical_logs, "keep_none")
                    .setConfig(GraphDatabaseSettings.logical_log_rotation_threshold, ByteUnit.mebiBytes(16))
                    // Netty's graceful-shutdown quiet period is 5 s per event loop group (~10 s
                    // in all); the databases are already checkpointed by then, so skip it.
                    .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
                    .build();
            ref.set(dbms);
        } catch (Throwable t) {
            System.err.println("neo4j-local: failed to start: " + t);
            t.printStackTrace();
            built.countDown();
            System.exit(1);
            return;
        }
        built.countDown();

        String dbName = GraphDatabaseSettings.DEFAULT_DATABASE_NAME;
        if (!dbms.database(dbName).isAvailable(Duration.ofMinutes(2).toMillis())) {
            System.err.println("neo4j-local: database '" + dbName + "' did not become available");
            System.exit(1);
        }
        waitForPort(port, Duration.ofSeconds(60));
        System.out.printf("NEO4J-LOCAL READY bolt://%s:%d (%.1f s)%n",
                HOST, port, (System.nanoTime() - started) / 1e9);
        System.out.flush();

        stopped.await(); // Block the main thread; the shutdown hook ends the process.
    }

    /** Bolt binds during build(), but check the socket so "ready" means "a client can connect". */
    private static void waitForPort(int port, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(HOST, port), 1000);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    System.err.println("neo4j-local: Bolt port " + port + " not answering: " + e);
                    System.exit(1);
                }
                Thread.sleep(200);
            }
        }
    }

    /** target/classes (or the jar) → tools/neo4j-local/data. */
    private static Path defaultHome() throws URISyntaxException {
        Path codeSource = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return codeSource.getParent().getParent().resolve("data");
    }

    private static long parseSize(String s) {
        String t = s.trim().toLowerCase();
        long mult = 1;
        switch (t.charAt(t.length() - 1)) {
            case 'k' -> mult = ByteUnit.kibiBytes(1);
            case 'm' -> mult = ByteUnit.mebiBytes(1);
            case 'g' -> mult = ByteUnit.gibiBytes(1);
            default -> { return Long.parseLong(t); }
        }
        return Long.parseLong(t.substring(0, t.length() - 1)) * mult;
    }

    private static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v;
    }

    private static Path envPath(String name) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? null : Path.of(v);
    }

    private static String required(String flag, String value) {
        if (value == null) {
            System.err.println(flag + " needs a value");
            System.exit(2);
        }
        return value;
    }

    private static void usage() {
        System.out.println("usage: Main [--port N] [--data-dir DIR] [--pagecache SIZE]");
    }
}
