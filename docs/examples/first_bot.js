// My first Knockout Whist bot in JavaScript: play my lowest legal card, name my longest suit trump.
//
// Set up:  npm init -y && npm install @grpc/grpc-js @grpc/proto-loader
//          cp <referee>/protos/knockout_whist/v1/bot.proto .
// Run it:  KWHIST_LISTEN=unix:/tmp/first.sock node first_bot.js
// Play it: referee play "node first_bot.js" heuristic random --trace
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO = process.env.KWHIST_PROTO || path.join(__dirname, 'bot.proto');
const definition = protoLoader.loadSync(PROTO, { keepCase: true, enums: String, defaults: true, oneofs: true });
const { KnockoutWhistBot } = grpc.loadPackageDefinition(definition).knockout_whist.v1;

const RANK = { TWO: 2, THREE: 3, FOUR: 4, FIVE: 5, SIX: 6, SEVEN: 7, EIGHT: 8, NINE: 9, TEN: 10, JACK: 11, QUEEN: 12, KING: 13, ACE: 14 };

// request: a DecisionRequest; the answer must be one of request.legal (any copy of it will do).
function decide(request) {
  if (request.decision === 'CHOOSE_TRUMP') {
    const held = (suit) => request.view.hand.filter((card) => card.suit === suit).length;
    const suits = request.legal.filter((action) => action.choose_trump.suit); // no_trump has no suit
    return suits.reduce((best, action) => (held(action.choose_trump.suit) > held(best.choose_trump.suit) ? action : best));
  }
  const plays = request.legal.filter((action) => action.play); // a dog may also pass: this bot never does
  return plays.reduce((low, action) => (RANK[action.play.rank] < RANK[low.play.rank] ? action : low));
}

const server = new grpc.Server();
server.addService(KnockoutWhistBot.service, {
  Hello: (call, callback) => callback(null, { protocol_major: 1, protocol_minor: 0, name: 'first-js-bot', author: 'me' }),
  Decide: (call, callback) => callback(null, decide(call.request)),
  GameOver: (call, callback) => callback(null, {}),
});
server.bindAsync(process.env.KWHIST_LISTEN, grpc.ServerCredentials.createInsecure(), (error) => {
  if (error) throw error;
  console.error(`first-js-bot: serving on ${process.env.KWHIST_LISTEN}`);
});
process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)));
