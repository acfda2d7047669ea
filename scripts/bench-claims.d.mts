// Types of scripts/bench-claims.mjs, for test/bench-claims.test.ts.

export interface BenchRow {
  key: string;
  name: string;
  unit: string;
  higher: boolean;
  values: { [impl: string]: number };
}

export interface BenchRun {
  format: number;
  date: string;
  commit: string;
  dirty: boolean;
  scale: string;
  rounds: number;
  counts: { [name: string]: number };
  seconds: number;
  validation: string;
  machine: {
    node: string;
    platform: string;
    cpu: string;
    cores: number;
    memoryGiB: number;
    loadAverageStart: number[];
    loadAverageEnd: number[];
  };
  rows: BenchRow[];
  customVsTool: { label: string; custom: number; tool: number }[];
}

export interface BenchTarget {
  file: string;
  start: string;
  end: string;
  render: (run: BenchRun) => string;
}

export const ROOT: string;
export const LATEST: string;
export const TARGETS: BenchTarget[];
export function readLatest(root?: string): BenchRun;
export function readmeText(run: BenchRun): string;
export function performanceText(run: BenchRun): string;
export function between(text: string, start: string, end: string, body: string): string;
export function currentText(text: string, start: string, end: string): string;
