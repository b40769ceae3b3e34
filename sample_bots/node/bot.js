#!/usr/bin/env node
'use strict';
// Sample Knockout Whist bot in JavaScript: a gRPC server for the KnockoutWhistBot service,
// loading protos/knockout_whist/v1/bot.proto at run time (no generated code).
//
//   KWHIST_LISTEN=unix:/tmp/node.sock node sample_bots/node/bot.js
//   node sample_bots/node/bot.js --listen 127.0.0.1:50051
//
// Environment: KWHIST_LISTEN (unix:/abs/path.sock or host:port; --listen ADDR overrides),
// KWHIST_PROTO (path of bot.proto; default ../../protos/knockout_whist/v1/bot.proto from
// this file, then ./bot.proto next to it). Stops cleanly on SIGTERM and SIGINT.

const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');

// Resolve packages from this bot's own directory (its node_modules), whatever the cwd.
const localRequire = createRequire(path.join(__dirname, 'package.json'));
const grpc = localRequire('@grpc/grpc-js');
const protoLoader = localRequire('@grpc/proto-loader');
const { decide } = require(path.join(__dirname, 'strategy.js'));

const NAME = 'node-sample';
const AUTHOR = 'Knockout Whist Referee samples';
const PROTOCOL = { major: 1, minor: 1 }; // 1.1: Play, one stream per seat and game

// $KWHIST_PROTO if set (it must exist), else the repository's protos/, else ./bot.proto.
function protoPath() {
  const override = (process.env.KWHIST_PROTO || '').trim();
  if (override) {
    if (!fs.existsSync(override)) fail(`KWHIST_PROTO=${override}: no such file`);
    return override;
  }
  const candidates = [
    path.join(__dirname, '..', '..', 'protos', 'knockout_whist', 'v1', 'bot.proto'),
    path.join(__dirname, 'bot.proto'),
  ];
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) fail(`cannot find bot.proto (looked at ${candidates.join(', ')}); set KWHIST_PROTO=/path/to/bot.proto`);
  return found;
}

function listenAddress(argv) {
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--listen' && i + 1 < argv.length) return argv[i + 1];
    if (argv[i].startsWith('--listen=')) return argv[i].slice('--listen='.length);
  }
  const address = (process.env.KWHIST_LISTEN || '').trim();
  if (!address) fail('no address to serve on: set KWHIST_LISTEN=unix:/path/bot.sock (or 127.0.0.1:50051), or pass --listen ADDR');
  return address;
}

function fail(message) {
  process.stderr.write(`${NAME}: ${message}\n`);
  process.exit(2);
}

// A stale socket file left by an earlier run would make the bind fail.
function removeStaleSocket(address) {
  if (!address.startsWith('unix:')) return;
  const file = address.slice('unix:'.length).replace(/^\/\/(?=\/)/, '');
  try {
    if (fs.statSync(file).isSocket()) fs.unlinkSync(file);
  } catch (error) {
    // no such file: nothing to remove
  }
}

function loadService() {
  const definition = protoLoader.loadSync(protoPath(), {
    keepCase: true, // field names as in the .proto: time_left_ms, pass_trick, ...
    enums: String, // 'ACE', 'SPADES', 'PLAY_CARD'
    longs: Number,
    defaults: true, // unset scalars read as 0 / '' / false, unset messages as null
    oneofs: true, // the set member of a oneof is named in e.g. action.action
  });
  return grpc.loadPackageDefinition(definition).knockout_whist.v1.KnockoutWhistBot.service;
}

// An exception while answering: its stack goes to stderr (the bot's log), and the call
// ends with a gRPC error status instead (fault "malformed" for that decision; the referee
// goes on with the seat's next one, on Decide or on a new Play stream). Never silent.
function logError(where, error) {
  process.stderr.write(`${NAME}: ${where}: ${(error && error.stack) || error}\n`);
}

function failure(request, error) {
  logError(`decision ${request.decision_number} of ${request.game_id}`, error);
  return { code: grpc.status.INTERNAL, details: `bot raised ${error}`.slice(0, 400) };
}

const handlers = {
  Hello(call, callback) {
    callback(null, {
      protocol_major: PROTOCOL.major, protocol_minor: PROTOCOL.minor, name: NAME, author: AUTHOR, plays_streams: true,
    });
  },
  // One decision per call (every referee; the simplest contract).
  Decide(call, callback) {
    let action;
    try {
      action = decide(call.request);
    } catch (error) {
      callback(failure(call.request, error));
      return;
    }
    callback(null, action);
  },
  // One seat of one game on one stream (protocol 1.1, asked because Hello says
  // plays_streams): each DecisionRequest is answered in order, echoing its decision_number.
  // The referee ends the stream at the game's end, or cancels it after a fault (and asks
  // the seat's next decision on a new stream).
  Play(call) {
    call.on('data', (request) => {
      if (call.writableEnded) return; // failed on an earlier request: the stream is over
      try {
        call.write({ decision_number: request.decision_number, action: decide(request) });
      } catch (error) {
        call.emit('error', failure(request, error)); // ends this stream with that status
      }
    });
    call.on('end', () => {
      if (!call.writableEnded) call.end();
    });
  },
  GameOver(call, callback) {
    callback(null, {});
  },
};

function main() {
  const address = listenAddress(process.argv.slice(2));
  const server = new grpc.Server();
  server.addService(loadService(), handlers);
  removeStaleSocket(address);
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) fail(`cannot listen on ${address}: ${error.message}`);
    // Serving: from now on an exception no handler caught is logged with its stack, and
    // the bot keeps serving (Node would otherwise end the process, and its games, at once).
    process.on('uncaughtException', (uncaught) => logError('uncaught exception', uncaught));
    process.stderr.write(`${NAME}: serving on ${address}${port > 0 && !address.startsWith('unix:') ? ` (port ${port})` : ''}\n`);
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // Finish calls in flight, then exit; give up waiting after 1 s.
    setTimeout(() => { server.forceShutdown(); process.exit(0); }, 1000).unref();
    server.tryShutdown(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
