package dev.verificationservice.testsupport.proxies;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.Function;

/**
 * A test's small change to an object it does not own, by a proxy of one interface: one method answers otherwise
 * ({@link #answering}), or one accessor answers another object ({@link #withPort}: a store whose port is behind a
 * test's decorator). Every other call goes straight to the target, and what it throws is thrown as it is.
 */
public final class Interposed {

    private Interposed() {
    }

    /** {@code target} behind a proxy of {@code type} whose calls of {@code method} answer {@code answer} of their arguments. */
    public static <T> T answering(Class<T> type, T target, String method, Function<Object[], Object> answer) {
        return proxy(type, (called, args) -> called.getName().equals(method) && called.getDeclaringClass() != Object.class
                ? answer.apply(args) : invoke(target, called, args));
    }

    /** {@code target} behind a proxy of {@code type} whose no-argument {@code accessor} answers {@code port}. */
    public static <T> T withPort(Class<T> type, T target, String accessor, Object port) {
        return proxy(type, (called, args) -> called.getName().equals(accessor) && called.getParameterCount() == 0
                ? port : invoke(target, called, args));
    }

    /** Calls {@code method} on {@code target}, throwing what it threw rather than the reflection's wrapper. */
    public static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private interface Handler {
        Object handle(Method called, Object[] args) throws Throwable;
    }

    private static <T> T proxy(Class<T> type, Handler handler) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (proxy, called, args) -> handler.handle(called, args)));
    }
}
