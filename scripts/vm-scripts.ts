// The scripts Catalyst runs on a host are real shell files (packages/backend/vm/*.sh: POSIX sh, shellcheck-clean),
// with what several share in packages/backend/vm/lib/*.sh, included by a `. ./lib/<name>.sh` line. The backend's
// pure core cannot read files, so this writes them into one generated module,
// packages/backend/src/core/vm-scripts.generated.ts, each as a string with its includes replaced by the fragments
// and without its comment lines (a script travels as an argument of `sh -c`). `--check` only says whether that module is what the files make now (the unit tests
// check it too). Run it after editing a .sh file: `pnpm vm-scripts`.
import { readFileSync, writeFileSync } from 'node:fs';
import { readVmScriptFiles, renderVmScripts, REPO_ROOT, VM_SCRIPTS_MODULE } from './vm-scripts-render.ts';

const target = `${REPO_ROOT}${VM_SCRIPTS_MODULE}`;
const rendered = renderVmScripts(readVmScriptFiles());
const current = readFileSync(target, { encoding: 'utf8', flag: 'a+' });
if (process.argv.includes('--check')) {
  if (current !== rendered) {
    console.error(`${VM_SCRIPTS_MODULE} is not what packages/backend/vm/*.sh make: run pnpm vm-scripts`);
    process.exit(1);
  }
} else if (current !== rendered) {
  writeFileSync(target, rendered);
  console.log(`wrote ${VM_SCRIPTS_MODULE}`);
}
