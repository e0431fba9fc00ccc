export function ensureDevServer(): string;
export function ensureTestServer(): string;
export interface StackBinaries {
  temporalCli: string;
  pgBin: string;
  server: string;
  sqlTool: string;
  serverRoot: string;
  schemaDir: string;
  uiServer?: string;
  uiRoot?: string;
}
export function ensureStack(): StackBinaries;
export function findPostgres(): string;
