// Serve one connection on KWHIST_LISTEN: answer "hello from node <uid>" and exit 0.
const net = require("net");
const path = process.env.KWHIST_LISTEN.replace(/^unix:/, "");
const server = net.createServer((socket) => {
  socket.end(`hello from node ${process.getuid()}\n`, () => server.close());
});
server.listen(path, () => console.log("READY", path));
