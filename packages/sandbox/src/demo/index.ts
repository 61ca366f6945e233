export { type Demo, type DemoOptions, type DemoResult, createDemo } from './run-demo';
export type { DemoSyncOutcome, DemoSyncReport, ServiceUnderDemo, StandIns, StartServiceUnderDemo } from './world';
export { pageText, plainMessage } from './world';
