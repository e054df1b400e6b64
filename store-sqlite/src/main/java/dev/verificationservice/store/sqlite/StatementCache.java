package dev.verificationservice.store.sqlite;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Keeps the prepared statements of one SQLite connection for reuse. sqlite-jdbc compiles the SQL again for every
 * {@code prepareStatement} and throws the compiled statement away on {@code close}; the store runs the same few
 * dozen statements over and over, and on its one writer compiling them was about a sixth of the thread's time
 * under load (a profile of sends; decision 0019). Through a connection this class wraps:
 * <ul>
 *   <li>{@code prepareStatement(sql)} hands out an idle compiled statement of that SQL, or compiles one;</li>
 *   <li>the statement's {@code close} closes its open result set (which resets it: an SQLite statement that is not
 *   reset keeps its read transaction open, and the connection would go on reading an old snapshot), clears its
 *   parameters and keeps it for the next caller, instead of finalising it. A second {@code close} does nothing, and
 *   a closed handle refuses every other call, as JDBC requires;</li>
 *   <li>the connection's {@code close} finalises every kept statement, then closes the connection.</li>
 * </ul>
 * A statement is handed to one caller at a time (a caller that prepares the same SQL twice before closing the
 * first gets a second statement), so nesting is safe. At most {@value #MAX_SQL} distinct statements and
 * {@value #MAX_IDLE_PER_SQL} idle copies of each are kept; beyond that a statement is finalised on close as
 * before. A connection is used by one thread at a time (the writer's, or the one a pooled connection is lent to);
 * the cache is synchronised anyway, uncontended.
 */
final class StatementCache {

    static final int MAX_SQL = 128;
    static final int MAX_IDLE_PER_SQL = 2;

    private final Connection connection;
    private final Map<String, ArrayDeque<PreparedStatement>> idle = new HashMap<>();
    private long compiled;

    private StatementCache(Connection connection) {
        this.connection = connection;
    }

    /** {@code connection} with its prepared statements kept for reuse (see the class comment). */
    static Connection caching(Connection connection) {
        StatementCache cache = new StatementCache(connection);
        return (Connection) Proxy.newProxyInstance(StatementCache.class.getClassLoader(),
                new Class<?>[] {Connection.class, Compilations.class}, cache::onConnection);
    }

    /** {@code dataSource} whose every connection keeps its prepared statements (the pool's connections). */
    static DataSource caching(DataSource dataSource) {
        return (DataSource) Proxy.newProxyInstance(StatementCache.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, arguments) -> {
                    Object result = invoke(dataSource, method, arguments);
                    return method.getName().equals("getConnection") ? caching((Connection) result) : result;
                });
    }

    /** How many statements a caching connection has compiled so far: for tests. */
    interface Compilations {
        long statementsCompiled();
    }

    private Object onConnection(Object proxy, Method method, Object[] arguments) throws Throwable {
        switch (method.getName()) {
            case "prepareStatement":
                if (arguments.length == 1) {
                    return handOut((String) arguments[0]);
                }
                break;
            case "close":
                closeKept();
                break;
            case "statementsCompiled":
                synchronized (this) {
                    return compiled;
                }
            default:
                break;
        }
        return invoke(connection, method, arguments);
    }

    private PreparedStatement handOut(String sql) throws SQLException {
        PreparedStatement statement;
        synchronized (this) {
            ArrayDeque<PreparedStatement> copies = idle.get(sql);
            statement = copies == null ? null : copies.pollFirst();
            if (statement == null) {
                compiled++;
            }
        }
        if (statement == null) {
            statement = connection.prepareStatement(sql);
        }
        Handle handle = new Handle(sql, statement);
        return (PreparedStatement) Proxy.newProxyInstance(StatementCache.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class}, handle);
    }

    /** One caller's use of a kept statement, from {@code prepareStatement} to {@code close}. */
    private final class Handle implements InvocationHandler {
        private final String sql;
        private final PreparedStatement statement;
        private boolean closed;
        /** The result set this caller got last (sqlite-jdbc hands out one per execution, and asks no twice). */
        private ResultSet lastResults;

        Handle(String sql, PreparedStatement statement) {
            this.sql = sql;
            this.statement = statement;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] arguments) throws Throwable {
            switch (method.getName()) {
                case "close":
                    if (!closed) {
                        closed = true;
                        giveBack(sql, statement, lastResults);
                    }
                    return null;
                case "isClosed":
                    return closed;
                case "equals":
                    return proxy == arguments[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "toString":
                    return "cached statement [" + sql + "]" + (closed ? " (closed)" : "");
                default:
                    if (closed) {
                        throw new SQLException("the statement is closed");
                    }
                    Object result = StatementCache.invoke(statement, method, arguments);
                    if (result instanceof ResultSet results) {
                        lastResults = results;
                    }
                    return result;
            }
        }
    }

    private void giveBack(String sql, PreparedStatement statement, ResultSet lastResults) throws SQLException {
        boolean keep;
        try {
            if (lastResults != null) {
                lastResults.close();
            }
            statement.clearParameters();
            synchronized (this) {
                ArrayDeque<PreparedStatement> copies = idle.get(sql);
                if (copies == null && idle.size() < MAX_SQL) {
                    copies = new ArrayDeque<>(MAX_IDLE_PER_SQL);
                    idle.put(sql, copies);
                }
                keep = copies != null && copies.size() < MAX_IDLE_PER_SQL;
                if (keep) {
                    copies.addLast(statement);
                }
            }
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
        if (!keep) {
            statement.close();
        }
    }

    private void closeKept() {
        List<PreparedStatement> kept = new ArrayList<>();
        synchronized (this) {
            idle.values().forEach(kept::addAll);
            idle.clear();
        }
        for (PreparedStatement statement : kept) {
            try {
                statement.close();
            } catch (SQLException e) {
                // The connection's close, next, finalises whatever is left.
            }
        }
    }

    private static Object invoke(Object target, Method method, Object[] arguments) throws Throwable {
        try {
            return method.invoke(target, arguments);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
