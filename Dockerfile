# One image for every role (docs/image.md). PROCESS_ROLES chooses what a container runs (api,
# ranking-worker, agents-worker; default all three); the migrations are a command of their own:
# `node dist/db/migrate-cli.js`. It runs as the unprivileged uid 10001 by default; the agents role runs
# as root with a few capabilities, to switch to its pool of users (docs/image.md, "The agents role").
#
#   docker build -t consultores-agentes .
#   (on a machine that reaches no container registry, or with no buildx: `npm run image:build`, which
#    assembles the base locally and uses the classic builder; docs/image.md)
ARG DEBIAN_CODENAME=bookworm

# ---------------------------------------------------------------------------------------------------
# node: the pinned Node from the npm registry's official binary package, checked against the same
# sha512 as scripts/node/ensure-node.sh (npm run image:build passes that script's values; these
# defaults are the same, test/unit/image.test.ts checks it). Also npm itself, for the build stages only.
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
# (the classic builder refuses a COPY of nothing, hence .dockerignore beside it: a file that seldom
# changes, so this stage is not rebuilt for an edit elsewhere). It stays in the build stages, never in
# the runtime stage.
COPY .dockerignore .build-ca.pe[m] /tmp/build-ca/
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
# manifest: package.json without its scripts and description, which do not change what is installed:
# editing an npm script does not repeat the install below.
FROM node AS manifest
COPY package.json /tmp/package.json
RUN node -e 'const p = require("/tmp/package.json"); delete p.scripts; delete p.description; \
      require("fs").writeFileSync("/tmp/manifest.json", JSON.stringify(p, null, 2) + "\n")'

# deps: exactly the lock's packages (npm install --no-save: scripts/install-deps.sh says why not npm ci).
# Only the manifest and the lock reach this stage, so a source change never repeats it.
FROM node AS deps
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
WORKDIR /src
COPY --from=manifest /tmp/manifest.json package.json
COPY package-lock.json ./
RUN npm install --no-save --no-audit --no-fund --loglevel=warn

# production-deps: the same without the development dependencies (also cached across source changes).
FROM deps AS production-deps
# Codex CLI's voice runtime (50 MB) serves its interactive voice mode only: `codex exec` never loads it.
RUN npm prune --omit=dev --no-save --no-audit --no-fund --loglevel=warn \
 && rm -rf node_modules/@openai/codex-linux-*/vendor/*/codex-resources/voice

# build: tsc over what the service runs (tsconfig.image.json: no tests, benchmarks or recorders) and
# the workflow bundles; the output paths are npm run build's (dist/main.js, dist/db/migrate-cli.js,
# dist/workflow-bundles/).
FROM deps AS build
COPY tsconfig.json tsconfig.image.json ./
COPY main.ts ./
COPY scripts/build-workflow-bundles.ts scripts/
COPY domain domain
COPY temporal temporal
COPY workflows workflows
COPY db db
COPY lib lib
COPY services services
COPY activities activities
COPY workers workers
COPY api api
RUN node_modules/.bin/tsc -p tsconfig.image.json && node dist/scripts/build-workflow-bundles.js

# ---------------------------------------------------------------------------------------------------
# runtime: the same base, what the roles need, the users, the compiled service, its production
# packages and the migrations. No compiler, no npm, no build CA.
FROM debian:${DEBIAN_CODENAME}-slim AS runtime
# Chromium and fonts: the PDF sheets (api); git and util-linux's setpriv: the agents; tini: the init.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates libatomic1 tini git util-linux chromium fonts-dejavu-core \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
COPY --from=node /opt/node/bin/node /opt/node/bin/node

# Users and groups, fixed ids (docs/image.md, "Users"):
#   app        uid 10001, group app 10001, also in agents: the default user (api, ranking-worker,
#              migrations); in agents to manage the agents' working directories and give them uploads;
#   agents     gid 10100: the agents' pool group (lib/agent-isolation.ts);
#   agentrunN  uid 10100+N, N = 1..AGENT_USERS (AGENT_USERS's default, 20), group agents, HOME
#              /var/lib/agent-users/agentrunN (0700, its own), no login shell.
# Directories a volume is mounted on, with the owners and modes a new Docker volume copies:
#   /data          AGENT_DATA_DIR (reports, published sites, the agents' sessions): app, 0700;
#   /reports       AGENT_REPORTS_DIR, the external reports directory, apart from the data area (the
#                  agents worker writes a copy of every report there): app, 0700;
#   /uploads       AGENT_UPLOADS_DIR: app:agents, 0710;
#   /home/projetos AGENT_WORKDIR_ROOTS' default: root:agents, 2770 (what the agents worker makes it).
ARG AGENT_USERS=20
RUN set -eu; \
    groupadd --gid 10001 app; \
    groupadd --gid 10100 agents; \
    useradd --uid 10001 --gid app --groups agents --home-dir /home/app --shell /usr/sbin/nologin app; \
    install -d -m 0700 -o app -g app /home/app; \
    install -d -m 0755 /var/lib/agent-users; \
    i=1; while [ "$i" -le "$AGENT_USERS" ]; do \
      useradd --uid "$((10100 + i))" --gid agents --no-user-group --home-dir "/var/lib/agent-users/agentrun$i" \
        --shell /usr/sbin/nologin "agentrun$i"; \
      install -d -m 0700 -o "agentrun$i" -g agents "/var/lib/agent-users/agentrun$i"; \
      i=$((i + 1)); \
    done; \
    install -d -m 0700 -o app -g app /data; \
    install -d -m 0700 -o app -g app /reports; \
    install -d -m 0710 -o app -g agents /uploads; \
    install -d -m 2770 -o root -g agents /home/projetos

ENV PATH=/opt/node/bin:$PATH \
    NODE_ENV=production \
    HTTP_HOST=0.0.0.0 \
    CHROMIUM_PATH=/usr/bin/chromium \
    CHROMIUM_SANDBOX=off \
    AGENT_USERS=$AGENT_USERS \
    AGENT_DATA_DIR=/data \
    AGENT_REPORTS_DIR=/reports \
    AGENT_UPLOADS_DIR=/uploads
WORKDIR /app
COPY --from=production-deps /src/node_modules node_modules
COPY package.json ./
COPY db/migrations db/migrations
COPY api/openapi/page api/openapi/page
COPY scripts/git/askpass.sh scripts/git/askpass.sh
COPY --from=build /src/dist dist
# By uid only, so the user's groups (app, agents) come from /etc/group: `10001:10001` would drop agents.
USER 10001
# HTTP_PORT (api) and METRICS_PORT (a process without the api role): /metrics, /livez, /readyz.
EXPOSE 3000 9464
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
