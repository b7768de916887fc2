# The gateway as a container image: built in one stage, run from a second that holds only what
# serving needs (production dependencies, the compiled src/ and tools/, the catalogue), as a non-root
# user with a read-only root filesystem in mind (the catalogue cache goes to /tmp).
#   docker build -t catalogue-gateway:0.1.0 .
#   docker run -p 8080:8080 catalogue-gateway:0.1.0
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
COPY tools ./tools
COPY src ./src
COPY test ./test
COPY bench ./bench
COPY catalogue ./catalogue
# npm ci runs `prepare`: the build (tsc, bundle) and a lint of the catalogue.
RUN npm ci --no-audit --no-fund

FROM node:20-bookworm-slim
# MALLOC_ARENA_MAX=1: glibc's malloc gives each thread that allocates at once an arena of its own (up
# to 8 per core), and a block freed in one arena serves only the threads that use it; a reload's
# loader thread and V8's helper threads then leave freed blocks where the next reload cannot reuse
# them (docs/operations.md, Memory; figures in docs/performance.md). The same value is in `npm start`.
ENV MALLOC_ARENA_MAX=1 \
    NODE_ENV=production \
    GATEWAY_HOST=0.0.0.0 \
    GATEWAY_PORT=8080 \
    GATEWAY_CATALOGUE=/app/catalogue \
    GATEWAY_CACHE_DIR=/tmp/catalogue-gateway-cache
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/tools ./dist/tools
COPY catalogue ./catalogue
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=2s CMD ["node", "-e", "fetch('http://127.0.0.1:8080/_gateway/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/cli.cjs"]
