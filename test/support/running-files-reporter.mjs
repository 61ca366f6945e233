/**
 * A jest reporter that keeps, in the file JEST_RUNNING_FILES names, the test files started and not
 * yet finished. When a pass stops answering, CI prints that file: the log then names the file a
 * worker is stuck in, which jest itself never reports for a file that does not finish.
 */
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';

class RunningFilesReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.target = process.env.JEST_RUNNING_FILES;
    this.running = new Map();
  }

  onTestStart(test) {
    this.running.set(test.path, Date.now());
    this.write();
  }

  onTestResult(test) {
    this.running.delete(test.path);
    this.write();
  }

  write() {
    if (!this.target) return;
    const lines = [...this.running].map(
      ([file, since]) => `${path.relative(this.rootDir, file)} (started ${new Date(since).toISOString().slice(11, 19)} UTC)`,
    );
    fs.writeFileSync(this.target, lines.length > 0 ? `${lines.join('\n')}\n` : '');
  }
}

export default RunningFilesReporter;
