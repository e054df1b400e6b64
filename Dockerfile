# The service in a container: built from this repository, started the way ./run starts it (extracted jar,
# class-data archive, small serial-GC heap), as a non-root user, with the embedded store in /data unless
# VERIFICATION_STORE=dynamodb. Build: docker build -t verification-service .
# Run:   docker run -p 8080:8080 -v verification-data:/data verification-service

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -ntp -q -DskipTests package -pl server -am \
 && java -Djarmode=tools -jar server/target/verification-server.jar extract --destination /app

FROM eclipse-temurin:17-jre
RUN groupadd --system --gid 10001 verification \
 && useradd --system --uid 10001 --gid verification --home-dir /app --shell /usr/sbin/nologin verification \
 && mkdir /data && chown verification:verification /data && chmod 700 /data
COPY --from=build /app /app
WORKDIR /app
# The class-data archive, made by one training start on a throwaway store, as ./run does after each build: the
# context, one readiness request (what answering it loads is archived too), then SIGTERM, at which the JVM writes it.
SHELL ["/bin/bash", "-c"]
RUN VERIFICATION_STORE=embedded VERIFICATION_DATA_DIR=/tmp/training SERVER_PORT=8080 \
    java -XX:+UseSerialGC -Xms32m -Xmx256m -XX:ArchiveClassesAtExit=/app/app.jsa \
    -jar /app/verification-server.jar > /tmp/training.log 2>&1 & pid=$! \
 && for _ in $(seq 3000); do grep -q 'Tomcat started on port' /tmp/training.log && break; sleep 0.1; done \
 && exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /actuator/health/readiness HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3 \
 && head -1 <&3 | grep -q ' 200' && exec 3>&- \
 && kill -TERM $pid && { wait $pid || true; } && test -s /app/app.jsa \
 && rm -rf /tmp/training /tmp/training.log
USER 10001:10001
ENV VERIFICATION_DATA_DIR=/data
VOLUME /data
EXPOSE 8080
# Liveness from inside the container without curl (the JRE image has bash): one HTTP/1.0 request.
HEALTHCHECK --interval=30s --timeout=3s --start-period=30s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /actuator/health/liveness HTTP/1.0\\r\\n\\r\\n' >&3 && grep -q '\"UP\"' <&3"]
ENTRYPOINT ["java", "-XX:+UseSerialGC", "-Xms32m", "-Xmx256m", "-XX:SharedArchiveFile=/app/app.jsa", \
            "-jar", "/app/verification-server.jar"]
