// Types for scripts/core-stamp.mjs (imported by test/core-stamp.test.ts).
export const INPUT_DIRS: string[];
export const INPUT_FILES: string[];
export const TOOLS: string[];
export const OUTPUTS: string[];
export const STAMP: string;
export function commandFiles(root: string): string[];
export function inputFiles(root: string): string[];
export function inputsHash(root: string): string;
export function writeStamp(root: string): void;
export function staleReason(root: string): string | null;
