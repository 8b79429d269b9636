// What names a finding from one run to the next: its message without the ages measured from the
// clock ("the newest line in its files is 44s old"), which change every second while a
// delegation is open. SARIF fingerprints and JUnit test names use it, so code scanning keeps one
// alert and test-history tools one test.
export const stableMessage = (message: string): string => message.replace(/\b\d+s old\b/g, 'Ns old').replace(/\b\d+s in the future\b/g, 'Ns in the future');
