// Prints jest's counts as one plain closing line ("tests: N passed, N failed") that CI reads.
const fs = require('node:fs');

const file = process.argv[2];
let results;
try {
  results = JSON.parse(fs.readFileSync(file, 'utf8'));
} catch (error) {
  console.error(`tests: no jest results in ${file} (${error.message})`);
  process.exit(1);
}
const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
console.log(`tests: ${results.numPassedTests} passed, ${failed} failed`);
if (results.numTotalTests === 0) {
  console.error('tests: jest ran no test');
  process.exit(1);
}
