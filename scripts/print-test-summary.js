// Prints jest's counts, added up over the result files given (the parallel run, then the serial one),
// as one plain closing line ("tests: N passed, N failed") that CI reads.
const fs = require('node:fs');

const files = process.argv.slice(2);
let passed = 0;
let failed = 0;
let total = 0;
let unreadable = false;
for (const file of files) {
  try {
    const results = JSON.parse(fs.readFileSync(file, 'utf8'));
    passed += results.numPassedTests;
    failed += results.numFailedTests + results.numRuntimeErrorTestSuites;
    total += results.numTotalTests;
  } catch (error) {
    console.error(`tests: no jest results in ${file} (${error.message})`);
    unreadable = true;
  }
}
console.log(`tests: ${passed} passed, ${failed} failed`);
if (unreadable) process.exit(1);
if (total === 0) {
  console.error('tests: jest ran no test');
  process.exit(1);
}
