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

// A bug in decide() must not be silent: log its stack (stderr goes to the bot's log) and
// answer with an error status instead, a "malformed" fault for that one decision.
function failed(request, error) {
  console.error(`decision ${request.decision_number} of ${request.game_id}: ${error.stack}`);
  return { code: grpc.status.INTERNAL, details: String(error) };
}

const server = new grpc.Server();
server.addService(KnockoutWhistBot.service, {
  // plays_streams: the referee asks this bot over Play (protocol 1.1); leave it out to be asked by Decide only
  Hello: (call, callback) => callback(null, { protocol_major: 1, protocol_minor: 1, name: 'first-js-bot', author: 'me', plays_streams: true }),
  Decide: (call, callback) => {
    let action;
    try {
      action = decide(call.request);
    } catch (error) {
      return callback(failed(call.request, error));
    }
    return callback(null, action);
  },
  // One stream per seat and game: answer each request in turn, echoing its decision_number.
  Play: (call) => {
    call.on('data', (request) => {
      if (call.writableEnded) return; // this stream failed earlier: the referee asks on a new one
      try {
        call.write({ decision_number: request.decision_number, action: decide(request) });
      } catch (error) {
        call.emit('error', failed(request, error)); // ends this stream with that status
      }
    });
    call.on('end', () => call.writableEnded || call.end()); // the game is over
  },
  GameOver: (call, callback) => callback(null, {}),
});
server.bindAsync(process.env.KWHIST_LISTEN, grpc.ServerCredentials.createInsecure(), (error) => {
  if (error) throw error;
  console.error(`first-js-bot: serving on ${process.env.KWHIST_LISTEN}`);
});
process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)));
