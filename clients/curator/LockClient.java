// Curator 5.4.0's InterProcessMutex, unmodified, as its documentation uses
// it, reporting its lock events to `locksmith serve`.
//
// Each client is a thread with its own CuratorFramework (its own session),
// and each round is the documentation's
//
//     if ( lock.acquire(maxWait, waitUnit) ) {
//         try { /* do some work inside of the critical section here */ }
//         finally { lock.release(); }
//     }
//
// with the critical section's opening and closing writes reported as
// `begin` and `end`. Every line goes to the events port as
// `CLIENT EVENT SESSION` (see docs/serve.md); the judge is locksmith's.
//
// Run with Java 17's source launcher and Debian's jars (their manifests
// name the rest of the class path):
//
//     java -cp /usr/share/java/curator-recipes.jar clients/curator/LockClient.java \
//         --zk 127.0.0.1:2281 --events 127.0.0.1:2282 --clients 2 --rounds 10

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class LockClient {
    static String zk = "127.0.0.1:2281";
    static String eventsAddr = "127.0.0.1:2282";
    static int clients = 2;
    static int rounds = 10;
    static int holdMs = 50;
    static int thinkMs = 10;
    static int sessionTimeoutMs = 60000;
    // Curator's default; a re-enacted connection timeout wants a short one.
    static int connectionTimeoutMs = 15000;
    static int maxWaitMs = 30000;
    static String path = "/lock";

    static OutputStream events;

    static synchronized void report(String client, String event, CuratorFramework c) {
        long session = 0;
        try {
            session = c.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            // No session right now (reconnecting): reported as 0.
        }
        String line = client + " " + event + " 0x" + Long.toHexString(session) + "\n";
        try {
            events.write(line.getBytes(StandardCharsets.UTF_8));
            events.flush();
        } catch (Exception e) {
            throw new RuntimeException("cannot report to " + eventsAddr + ": " + e, e);
        }
    }

    static void runClient(String name, ConcurrentLinkedQueue<String> failures) throws Exception {
        CuratorFramework c = CuratorFrameworkFactory.newClient(
            zk, sessionTimeoutMs, connectionTimeoutMs, new ExponentialBackoffRetry(100, 3));
        c.getConnectionStateListenable().addListener((client, state) ->
            System.err.println(name + ": connection " + state));
        c.start();
        // Its first `acquiring` names its session, which a `waiter` fault
        // aims at (a client not yet connected reports 0: no session).
        c.blockUntilConnected(connectionTimeoutMs, TimeUnit.MILLISECONDS);
        InterProcessMutex lock = new InterProcessMutex(c, path);
        try {
            for (int round = 0; round < rounds; round++) {
                report(name, "acquiring", c);
                try {
                    if (lock.acquire(maxWaitMs, TimeUnit.MILLISECONDS)) {
                        try {
                            report(name, "acquired", c);
                            report(name, "begin", c);
                            Thread.sleep(holdMs);
                            report(name, "end", c);
                        } finally {
                            report(name, "released", c);
                            lock.release();
                        }
                    } else {
                        report(name, "gave-up", c);
                        failures.add(name + ": timed out");
                    }
                } catch (Exception e) {
                    // The exception escapes the lock's code: the thread that
                    // ran it is gone, as the checker's "thread died" says.
                    System.err.println(name + ": " + e);
                    failures.add(name + ": " + e.getClass().getSimpleName());
                    report(name, "died", c);
                    return;
                }
                Thread.sleep(thinkMs);
            }
        } finally {
            report(name, "finished", c);
            c.close();
        }
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--zk": zk = v; break;
                case "--events": eventsAddr = v; break;
                case "--clients": clients = Integer.parseInt(v); break;
                case "--rounds": rounds = Integer.parseInt(v); break;
                case "--hold-ms": holdMs = Integer.parseInt(v); break;
                case "--think-ms": thinkMs = Integer.parseInt(v); break;
                case "--session-timeout-ms": sessionTimeoutMs = Integer.parseInt(v); break;
                case "--connection-timeout-ms": connectionTimeoutMs = Integer.parseInt(v); break;
                case "--max-wait-ms": maxWaitMs = Integer.parseInt(v); break;
                case "--path": path = v; break;
                default:
                    System.err.println("unknown flag " + args[i]);
                    System.exit(2);
            }
        }
        String[] hp = eventsAddr.split(":");
        events = new Socket(hp[0], Integer.parseInt(hp[1])).getOutputStream();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 1; i <= clients; i++) {
            String name = "j" + i;
            Thread t = new Thread(() -> {
                try {
                    runClient(name, failures);
                } catch (Exception e) {
                    System.err.println(name + ": " + e);
                    failures.add(name + ": " + e.getClass().getSimpleName());
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("curator " + clients + " clients x " + rounds + " rounds done; exceptions: "
            + failures.size() + " " + failures);
        events.close();
    }
}
