// How long after a two-way partition ZooKeeper's own Java client (3.8,
// Debian's zookeeper.jar) declares Disconnected, and how long after it the
// server expires the session: the deadlines the simulator follows
// (docs/real.md, "Partition deadlines"). Run by scripts/partition-deadlines.sh.
//
// Each trial opens a session through a proxy of its own, creates an
// ephemeral node and, after a random delay (so the partition falls at any
// phase of the client's pings), stops forwarding both ways: the sockets
// stay open, as they do when a network drops packets. The client's default
// watcher gives the Disconnected time; an observer session, connected
// directly, gives the expiry time (its watch on the ephemeral node fires
// NodeDeleted when the server expires the session).
//
// Prints one line per trial and a summary, in milliseconds after the
// partition.

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

public class PartitionDeadlines {
    /** A proxy that forwards bytes both ways until it is clogged. */
    static final class Proxy implements Runnable {
        final ServerSocket listener;
        final String host;
        final int port;
        volatile boolean clogged;

        Proxy(String host, int port) throws Exception {
            this.host = host;
            this.port = port;
            this.listener = new ServerSocket();
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
        }

        int port() {
            return listener.getLocalPort();
        }

        public void run() {
            try {
                while (true) {
                    Socket client = listener.accept();
                    if (clogged) {
                        // A reconnect during the partition reaches nothing.
                        continue;
                    }
                    Socket server = new Socket(host, port);
                    pump(client.getInputStream(), server.getOutputStream());
                    pump(server.getInputStream(), client.getOutputStream());
                }
            } catch (Exception e) {
                // closed
            }
        }

        void pump(InputStream in, OutputStream out) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[65536];
                try {
                    while (true) {
                        while (clogged) {
                            Thread.sleep(50);
                        }
                        int n = in.read(buf);
                        if (n < 0) {
                            return;
                        }
                        // Bytes read just as the partition began are lost.
                        if (!clogged) {
                            out.write(buf, 0, n);
                            out.flush();
                        }
                    }
                } catch (Exception e) {
                    // closed
                }
            });
            t.setDaemon(true);
            t.start();
        }

        void close() {
            try {
                listener.close();
            } catch (Exception e) {
                // already closed
            }
        }
    }

    record Trial(double disconnectedMs, double expiredMs) {}

    static Trial trial(String host, int port, int timeoutMs, String root, int n, long seed)
            throws Exception {
        Proxy proxy = new Proxy(host, port);
        Thread pt = new Thread(proxy);
        pt.setDaemon(true);
        pt.start();
        CountDownLatch connected = new CountDownLatch(1);
        long[] disconnectedAt = {0};
        ZooKeeper zk = new ZooKeeper("127.0.0.1:" + proxy.port(), timeoutMs, (WatchedEvent e) -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            } else if (e.getState() == Watcher.Event.KeeperState.Disconnected) {
                synchronized (disconnectedAt) {
                    if (disconnectedAt[0] == 0) {
                        disconnectedAt[0] = System.nanoTime();
                    }
                }
            }
        });
        if (!connected.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no session through the proxy");
        }
        String path = zk.create(root + "/e-" + n, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.EPHEMERAL);
        CountDownLatch observerUp = new CountDownLatch(1);
        CountDownLatch deleted = new CountDownLatch(1);
        long[] expiredAt = {0};
        ZooKeeper observer = new ZooKeeper(host + ":" + port, 30000, (WatchedEvent e) -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected && e.getPath() == null) {
                observerUp.countDown();
            }
        });
        observerUp.await(10, TimeUnit.SECONDS);
        observer.exists(path, (WatchedEvent e) -> {
            if (e.getType() == Watcher.Event.EventType.NodeDeleted) {
                expiredAt[0] = System.nanoTime();
                deleted.countDown();
            }
        });
        // The partition falls at a random phase of the pings.
        Thread.sleep(200 + new Random(seed).nextInt(timeoutMs));
        long partitionAt = System.nanoTime();
        proxy.clogged = true;
        if (!deleted.await(3L * timeoutMs, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("the session did not expire");
        }
        // Disconnected may come after the expiry: wait for it a little.
        for (int i = 0; i < 100 && disconnectedAt[0] == 0; i++) {
            Thread.sleep(50);
        }
        proxy.close();
        zk.close(100);
        observer.close();
        long d;
        synchronized (disconnectedAt) {
            d = disconnectedAt[0];
        }
        return new Trial((d - partitionAt) / 1e6, (expiredAt[0] - partitionAt) / 1e6);
    }

    static String percentiles(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return String.format("min %.0f, median %.0f, max %.0f", s.get(0), s.get(s.size() / 2),
                s.get(s.size() - 1));
    }

    public static void main(String[] args) throws Exception {
        String[] hp = (args.length > 0 ? args[0] : "127.0.0.1:2181").split(":");
        int trials = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int timeoutMs = args.length > 2 ? Integer.parseInt(args[2]) : 4000;
        String host = hp[0];
        int port = Integer.parseInt(hp[1]);
        String root = "/partition-deadlines";
        CountDownLatch up = new CountDownLatch(1);
        ZooKeeper admin = new ZooKeeper(host + ":" + port, 30000, e -> up.countDown());
        up.await(10, TimeUnit.SECONDS);
        try {
            admin.create(root, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException e) {
            // from an earlier run
        }
        int parallel = 5;
        List<Trial> results = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < parallel; w++) {
            final int worker = w;
            Thread t = new Thread(() -> {
                for (int i = worker; i < trials; i += parallel) {
                    try {
                        results.add(trial(host, port, timeoutMs, root, i, i));
                    } catch (Exception e) {
                        System.err.println("trial " + i + ": " + e);
                    }
                }
            });
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        admin.close();
        List<Double> disc = new ArrayList<>();
        List<Double> exp = new ArrayList<>();
        List<Double> margin = new ArrayList<>();
        for (Trial r : results) {
            System.out.printf("disconnected %.0f ms, expired %.0f ms after the partition%n",
                    r.disconnectedMs(), r.expiredMs());
            disc.add(r.disconnectedMs());
            exp.add(r.expiredMs());
            margin.add(r.expiredMs() - r.disconnectedMs());
        }
        System.out.printf("real ZooKeeper, session timeout %d ms, %d trials%n", timeoutMs,
                results.size());
        System.out.println("partition to Disconnected (ms): " + percentiles(disc));
        System.out.println("partition to expiry (ms): " + percentiles(exp));
        System.out.println("Disconnected before expiry by (ms): " + percentiles(margin));
    }
}
