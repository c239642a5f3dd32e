/** A line the fleet would like logged (it prints nothing itself): the server hands it to its logger. */
export interface DemoLogEntry {
  readonly level: 'info' | 'warn';
  readonly message: string;
  readonly routeId?: string;
}

export type DemoLog = (entry: DemoLogEntry) => void;
