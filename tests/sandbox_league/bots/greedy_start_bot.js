// Allocates 1 GiB before it serves (a table built at start, too big for the default memory
// limit of 512 MiB): Node throws "Array buffer allocation failed" and ends with code 1.
const data = Buffer.alloc(1 << 30, 1);
console.log(`ALLOCATED ${data.length}`);
