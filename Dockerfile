# One image for every role (issue 40, part 1 — spike). PROCESS_ROLES chooses what a container runs;
# the migrations are a command of their own: `node dist/db/migrate-cli.js`. docs/image.md.
#
#   docker build -t consultores-agentes:spike .
#   (here, where no container registry is reached: scripts/image/base.sh first, and
#    DOCKER_BUILDKIT=0 docker build --network host ..., see docs/image.md)
ARG DEBIAN_CODENAME=bookworm

# ---------------------------------------------------------------------------------------------------
# node: the pinned Node (scripts/node/ensure-node.sh) from the npm registry's official binary package,
# checked against the same sha512. Also npm itself (the node-linux-* package ships none).
FROM debian:${DEBIAN_CODENAME}-slim AS node
ARG NODE_VERSION=26.12.1
ARG NODE_INTEGRITY_X64=sha512-jk5LMAmgHlPlPMWpsUrSOqNaEZG+11UNd35hWQ+p5/XGaelWuTqJ69IcAy/5xtPPN4d5ZRBNOGB6gLMCh2kL9A==
ARG NODE_INTEGRITY_ARM64=sha512-8Oxs6Y7rDcKufVIM/zYRSwytj46WOrZk7yFCLTKDcs17bBjAeD9HMAqo97hMfMyxozIud0S4vZCs5WB/3iavNQ==
ARG NPM_VERSION=11.19.1
ARG NPM_REGISTRY=https://registry.npmjs.org
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates curl openssl libatomic1 \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
# A build-time CA, only where the registries are reached through a proxy that needs one: the build
# script puts the machine's bundle in .build-ca.pem (git-ignored); elsewhere the glob matches nothing
# but package.json. It stays in the build stages, never in the runtime stage.
COPY package.json .build-ca.pe[m] /tmp/build-ca/
RUN if [ -f /tmp/build-ca/.build-ca.pem ]; then \
      cat /tmp/build-ca/.build-ca.pem >> /etc/ssl/certs/ca-certificates.crt; fi
RUN set -eu; \
    case "$(uname -m)" in x86_64) arch=x64 want=$NODE_INTEGRITY_X64 ;; aarch64) arch=arm64 want=$NODE_INTEGRITY_ARM64 ;; *) echo "no node for $(uname -m)"; exit 1 ;; esac; \
    curl -fsSL -o /tmp/node.tgz "$NPM_REGISTRY/node-linux-$arch/-/node-linux-$arch-$NODE_VERSION.tgz"; \
    got="sha512-$(openssl dgst -sha512 -binary /tmp/node.tgz | base64 -w0)"; \
    [ "$got" = "$want" ] || { echo "node tarball integrity $got, not $want"; exit 1; }; \
    mkdir -p /opt/node && tar -xzf /tmp/node.tgz -C /opt/node --strip-components=1 --no-same-owner; \
    chmod -R u+rwX,go+rX,go-w /opt/node; rm /tmp/node.tgz; \
    curl -fsSL -o /tmp/npm.tgz "$NPM_REGISTRY/npm/-/npm-$NPM_VERSION.tgz"; \
    mkdir -p /opt/npm && tar -xzf /tmp/npm.tgz -C /opt/npm --strip-components=1 --no-same-owner; rm /tmp/npm.tgz; \
    ln -s /opt/npm/bin/npm-cli.js /usr/local/bin/npm; ln -s /opt/node/bin/node /usr/local/bin/node; \
    node --version; npm --version

# ---------------------------------------------------------------------------------------------------
# build: exactly the lock's packages (npm install --no-save, as scripts/install-deps.sh says why not
# npm ci), tsc and the workflow bundles, then the development dependencies pruned.
FROM node AS build
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm install --no-save --no-audit --no-fund --loglevel=warn
COPY tsconfig.json tsconfig.build.json ./
COPY main.ts ./
COPY domain domain
COPY api api
COPY workflows workflows
COPY activities activities
COPY workers workers
COPY db db
COPY temporal temporal
COPY lib lib
COPY services services
# scripts/ (bench, faults, recorders) import test/support and test/fixtures: tsc needs them to build.
COPY test test
COPY scripts scripts
RUN node_modules/.bin/tsc -p tsconfig.build.json && node dist/scripts/build-workflow-bundles.js
RUN npm prune --omit=dev --no-save --no-audit --no-fund --loglevel=warn \
 && find dist -name '*.map' -delete

# ---------------------------------------------------------------------------------------------------
# runtime: the same base, what the roles need, the compiled service, its production packages and the
# migrations. No compiler, no npm, no build CA.
FROM debian:${DEBIAN_CODENAME}-slim AS runtime
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates libatomic1 tini git util-linux chromium fonts-dejavu-core \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
COPY --from=node /opt/node/bin/node /opt/node/bin/node
ENV PATH=/opt/node/bin:$PATH NODE_ENV=production CHROMIUM_PATH=/usr/bin/chromium
# A fixed unprivileged user by default (uid/gid 10001); the agents role overrides it (docs/image.md).
RUN groupadd --gid 10001 app && useradd --uid 10001 --gid 10001 --home-dir /app --no-create-home --shell /usr/sbin/nologin app
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/dist dist
COPY db/migrations db/migrations
USER 10001:10001
EXPOSE 3000
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
