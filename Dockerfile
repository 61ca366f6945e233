# Tierlink in a container (docs/operating.md, "Docker"). Two stages, each running the commands the
# release test runs (test/release/release.test.ts):
#   1. package: npm ci (as CI does), then npm run package → release/tierlink-<version>.tar.gz;
#   2. runtime: deploy/install-release.sh (unpack, npm ci --omit=dev), then npm start as the
#      unprivileged user `node`. No compiler, test tool or stand-in is in the image.
# The embedded database and its key live in the volume /data; set DATABASE_URL for PostgreSQL.

FROM node:20-bookworm-slim AS package
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund
RUN npm run package

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=3000
COPY --from=package /src/deploy/install-release.sh /src/release/ /tmp/release/
RUN sh /tmp/release/install-release.sh /tmp/release/tierlink-*.tar.gz /app \
 && rm -rf /tmp/release && npm cache clean --force \
 && mkdir -p /data && chown node:node /data
WORKDIR /app
USER node
VOLUME ["/data"]
EXPOSE 3000
# /healthz answers 200 while the database answers (503 otherwise); from the loopback address.
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["npm", "start"]
