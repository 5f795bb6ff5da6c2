{{/* Names and labels. */}}
{{- define "ca.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "ca.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one role: (dict "root" $ "role" "api"). */}}
{{- define "ca.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .role }}
{{- end -}}

{{- define "ca.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "ca.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The one image every role runs: a digest wins over the tag; the tag defaults to appVersion. */}}
{{- define "ca.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{- define "ca.secretName" -}}
{{- default (printf "%s-secrets" (include "ca.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{/* Whether the chart makes the Secret: from `secrets.values`, unless an existing one is named. */}}
{{- define "ca.createsSecret" -}}
{{- if and (not .Values.secrets.existingSecret) .Values.secrets.values -}}true{{- end -}}
{{- end -}}

{{/* The keys the Secret holds: those of `secrets.values` when the chart makes it, else `secrets.keys`. */}}
{{- define "ca.secretKeys" -}}
{{- if include "ca.createsSecret" . -}}
{{- toJson (keys .Values.secrets.values | sortAlpha) -}}
{{- else -}}
{{- toJson .Values.secrets.keys -}}
{{- end -}}
{{- end -}}

{{/*
The secret settings each role reads (lib/secret-files.ts): a role is given only those, as files.
Every role reaches Elasticsearch at start (workers/connection-check.ts) and serves /metrics, which
asks for AUTH_TOKEN when one is set (a scrape by pod address then passes the Host check with it).
*/}}
{{- define "ca.roleSecrets" -}}
{{- $all := dict
  "api" (list "AUTH_TOKEN" "WEBHOOK_SECRET" "MYSQL_PASSWORD" "REDIS_URL" "REDIS_PASSWORD" "REDIS_SENTINEL_PASSWORD" "ELASTICSEARCH_API_KEY" "ELASTICSEARCH_PASSWORD" "TEMPORAL_API_KEY" "GIT_PASSWORD" "AGENT_SECRETS_KEY")
  "ranking-worker" (list "AUTH_TOKEN" "MYSQL_PASSWORD" "REDIS_URL" "REDIS_PASSWORD" "REDIS_SENTINEL_PASSWORD" "ELASTICSEARCH_API_KEY" "ELASTICSEARCH_PASSWORD" "TEMPORAL_API_KEY")
  "agents-worker" (list "AUTH_TOKEN" "MYSQL_PASSWORD" "REDIS_URL" "REDIS_PASSWORD" "REDIS_SENTINEL_PASSWORD" "ELASTICSEARCH_API_KEY" "ELASTICSEARCH_PASSWORD" "TEMPORAL_API_KEY" "GIT_PASSWORD" "AGENT_SECRETS_KEY" "ANTHROPIC_API_KEY" "ANTHROPIC_AUTH_TOKEN" "OPENAI_API_KEY" "CODEX_API_KEY" "GEMINI_API_KEY")
-}}
{{- $held := include "ca.secretKeys" .root | fromJsonArray -}}
{{- $given := list -}}
{{- range (get $all .role) -}}
{{- if has . $held -}}{{- $given = append $given . -}}{{- end -}}
{{- end -}}
{{- toJson $given -}}
{{- end -}}

{{/*
The secret volumes of a role: (dict "root" $ "role" "api" "mode" 0440). Only the role's keys are
projected; the mode is checked against the role's user by test/unit/chart.test.ts.
*/}}
{{- define "ca.secretVolumes" -}}
{{- $keys := include "ca.roleSecrets" . | fromJsonArray -}}
{{- if $keys }}
- name: secrets
  secret:
    secretName: {{ include "ca.secretName" .root }}
    defaultMode: {{ .mode }}
    items:
      {{- range $keys }}
      - key: {{ . }}
        path: {{ . }}
      {{- end }}
{{- end }}
{{- if .root.Values.secrets.tlsSecret }}
- name: tls
  secret:
    secretName: {{ .root.Values.secrets.tlsSecret }}
    defaultMode: {{ .mode }}
{{- end }}
{{- end -}}

{{- define "ca.secretMounts" -}}
{{- if include "ca.roleSecrets" . | fromJsonArray }}
- name: secrets
  mountPath: /run/secrets/consultores
  readOnly: true
{{- end }}
{{- if .root.Values.secrets.tlsSecret }}
- name: tls
  mountPath: /run/secrets/consultores/tls
  readOnly: true
{{- end }}
{{- end -}}

{{/* <NAME>_FILE for each secret the role is given. */}}
{{- define "ca.secretEnv" -}}
{{- range (include "ca.roleSecrets" . | fromJsonArray) }}
- name: {{ . }}_FILE
  value: /run/secrets/consultores/{{ . }}
{{- end }}
{{- end -}}

{{/* The migrations as an init container: (dict "root" $ "role" "api"). */}}
{{- define "ca.migrateContainer" -}}
- name: migrate
  image: {{ include "ca.image" .root }}
  imagePullPolicy: {{ .root.Values.image.pullPolicy }}
  command: ["node", "dist/db/migrate-cli.js"]
  envFrom:
    - configMapRef:
        name: {{ include "ca.fullname" .root }}-config
  env:
    # The role's own settings: the configuration is checked as the role's process checks it.
    - name: PROCESS_ROLES
      value: {{ .role }}
    {{- include "ca.secretEnv" . | nindent 4 }}
  volumeMounts:
    {{- include "ca.secretMounts" . | nindent 4 }}
  resources:
    {{- toYaml .root.Values.migrations.resources | nindent 4 }}
  securityContext:
    {{- if eq .role "agents-worker" }}
    # As its pod's user (root): the agents pod's secret files are root's 0400. No capability.
    runAsNonRoot: false
    runAsUser: 0
    runAsGroup: 0
    allowPrivilegeEscalation: false
    readOnlyRootFilesystem: true
    capabilities:
      drop: [ALL]
    {{- else }}
    {{- include "ca.securityContext.app" .root | nindent 4 }}
    {{- end }}
{{- end -}}

{{/* The image's app user (uid 10001): no capability, read-only root file system. */}}
{{- define "ca.securityContext.app" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
{{- end -}}

{{/* Probes on a port: /livez for start and life, /readyz for traffic (docs/probes-and-drains.md). */}}
{{- define "ca.probes" -}}
startupProbe:
  httpGet: { path: /livez, port: {{ . }} }
  periodSeconds: 2
  failureThreshold: 90
livenessProbe:
  httpGet: { path: /livez, port: {{ . }} }
  periodSeconds: 10
  timeoutSeconds: 2
  failureThreshold: 3
readinessProbe:
  httpGet: { path: /readyz, port: {{ . }} }
  periodSeconds: 2
  timeoutSeconds: 2
  failureThreshold: 1
{{- end -}}

{{/* Gives the shared volume's directories their owners (docs/image.md), once: data, uploads, and the external reports unless they have a claim of their own. */}}
{{- define "ca.setOwnersContainer" -}}
{{- if .Values.sharedData.setOwners }}
- name: set-owners
  image: {{ include "ca.image" . }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  command:
    - sh
    - -c
    - >-
      mkdir -p /shared/data /shared/uploads &&
      chown 10001:10001 /shared/data && chmod 0700 /shared/data &&
      chown 10001:10100 /shared/uploads && chmod 0710 /shared/uploads
      {{- if not .Values.externalReports.existingClaim }} &&
      mkdir -p /shared/reports && chown 10001:10001 /shared/reports && chmod 0700 /shared/reports
      {{- end }}
  volumeMounts:
    - name: shared-data
      mountPath: /shared
  resources:
    {{- toYaml .Values.migrations.resources | nindent 4 }}
  securityContext:
    runAsNonRoot: false
    runAsUser: 0
    runAsGroup: 0
    allowPrivilegeEscalation: false
    readOnlyRootFilesystem: true
    capabilities:
      drop: [ALL]
      add: [CHOWN, FOWNER, DAC_OVERRIDE]
{{- end }}
{{- end -}}

{{- define "ca.sharedDataClaim" -}}
{{- default (printf "%s-shared-data" (include "ca.fullname" .)) .Values.sharedData.existingClaim -}}
{{- end -}}

{{- define "ca.workdirsClaim" -}}
{{- default (printf "%s-workdirs" (include "ca.fullname" .)) .Values.agentsWorker.workdirs.existingClaim -}}
{{- end -}}

{{/* Seconds as the service's milliseconds. */}}
{{- define "ca.ms" -}}
{{- mul . 1000 | toString | quote -}}
{{- end -}}

{{/* ALLOWED_HOSTS: the names given, the route's and the ingress's, as a JSON list. */}}
{{- define "ca.allowedHosts" -}}
{{- $hosts := .Values.api.allowedHosts -}}
{{- if .Values.api.httpRoute.enabled -}}{{- $hosts = concat $hosts .Values.api.httpRoute.hostnames -}}{{- end -}}
{{- if .Values.api.ingress.enabled -}}
{{- range .Values.api.ingress.hosts -}}{{- $hosts = append $hosts .host -}}{{- end -}}
{{- end -}}
{{- toJson (uniq $hosts) -}}
{{- end -}}

{{/* Egress every role needs: the cluster's DNS and the data services (MySQL, Redis, Elasticsearch, Temporal). */}}
{{- define "ca.baseEgress" -}}
- ports:
    - { protocol: UDP, port: 53 }
    - { protocol: TCP, port: 53 }
- {{- with .to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  ports:
    {{- range .ports }}
    - { protocol: TCP, port: {{ . }} }
    {{- end }}
{{- end }}
{{- define "ca.metricsIngress" -}}
- {{- with .from }}
  from:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  ports:
    - { protocol: TCP, port: {{ .port }} }
{{- end }}

{{/*
The ConfigMap holding the agents worker's model prices (MODEL_PRICES_FILE): the operator's
`agentsWorker.modelPrices.existingConfigMap`, the chart's own when `models` has entries, else empty.
*/}}
{{- define "ca.modelPricesConfigMap" -}}
{{- $prices := .Values.agentsWorker.modelPrices -}}
{{- if and $prices.existingConfigMap $prices.models -}}
{{- fail "agentsWorker.modelPrices: give `models` or `existingConfigMap`, not both" -}}
{{- else if $prices.existingConfigMap -}}
{{- $prices.existingConfigMap -}}
{{- else if $prices.models -}}
{{- printf "%s-model-prices" (include "ca.fullname" .) -}}
{{- end -}}
{{- end -}}
