// A DynamoDB-compatible store (dynalite) in a process of its own, keeping its data under a folder, so
// that a test can stop, continue, kill and restart it by its PID as a real store process fails.
// Arguments: port (0 for a free one) and data folder. Prints the port it listens on.
const dynalite = require('dynalite');

const [port = '0', path] = process.argv.slice(2);
const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(Number(port), '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
