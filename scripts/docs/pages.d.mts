/** Every generated file (relative to the repository) and what it should hold. */
export function generatedFiles(): Promise<Record<string, string>>;
/** The generated files that differ from what the code makes now. */
export function staleFiles(): Promise<string[]>;
export const ROOT: string;
