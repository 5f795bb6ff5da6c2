import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

/** The Helm chart and its production example (docs/deployment.md). */
export const REPO_ROOT = path.resolve(__dirname, '../..');
export const CHART_DIR = path.join(REPO_ROOT, 'deploy/helm/consultores-agentes');
export const PRODUCTION_VALUES = path.join(REPO_ROOT, 'deploy/helm/examples/production-values.yaml');
export const RELEASE = { name: 'consultores', namespace: 'consultores' };

/** A rendered Kubernetes object, as loosely typed as the YAML it came from. */
export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string }; spec?: any; data?: any; [key: string]: any };

let helmPath: string | undefined;

/**
 * The pinned Helm of scripts/chart/install-tools.sh (built from the Go module proxy the first time,
 * minutes; then found at once). A missing Go or proxy fails the suite with the script's own words.
 */
export function helm(): string {
  if (helmPath !== undefined) return helmPath;
  const envFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'chart-tools-')), 'env');
  execFileSync('bash', [path.join(REPO_ROOT, 'scripts/chart/install-tools.sh'), '--env', envFile], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const helmLine = /^CHART_HELM=(.+)$/m.exec(fs.readFileSync(envFile, 'utf8'))?.[1];
  if (helmLine === undefined) throw new Error(`scripts/chart/install-tools.sh wrote no CHART_HELM to ${envFile}`);
  helmPath = helmLine.replace(/^['"]|['"]$/g, '');
  return helmPath;
}

export interface RenderResult {
  status: number;
  stderr: string;
  objects: K8sObject[];
}

/** `helm template` of the chart with the values files and `--set`s given; objects parsed, errors kept. */
export function renderChart(valuesFiles: string[] = [], sets: string[] = []): RenderResult {
  const args = ['template', RELEASE.name, CHART_DIR, '--namespace', RELEASE.namespace];
  for (const file of valuesFiles) args.push('--values', file);
  for (const set of sets) args.push('--set', set);
  const run = spawnSync(helm(), args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error) throw run.error;
  const objects =
    run.status === 0
      ? parseAllDocuments(run.stdout)
          .map((document) => document.toJS() as K8sObject | null)
          .filter((object): object is K8sObject => object !== null)
      : [];
  return { status: run.status ?? -1, stderr: run.stderr, objects };
}

/** Renders and fails with Helm's own message when the chart does not render. */
export function rendered(valuesFiles: string[] = [], sets: string[] = []): K8sObject[] {
  const result = renderChart(valuesFiles, sets);
  if (result.status !== 0) throw new Error(`helm template failed (${result.status}): ${result.stderr}`);
  return result.objects;
}

export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet'];

export const workloads = (objects: K8sObject[]) => objects.filter((object) => WORKLOAD_KINDS.includes(object.kind));

/** The role a workload runs, from its component label (api, ranking-worker, agents-worker). */
export const roleOf = (workload: K8sObject): string => workload.spec.template.metadata.labels['app.kubernetes.io/component'];
