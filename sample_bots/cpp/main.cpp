// Sample Knockout Whist bot in C++17: a gRPC server for the KnockoutWhistBot service.
//
//   KWHIST_LISTEN=unix:/tmp/cpp.sock sample_bots/cpp/build/kwhist_cpp_bot
//   sample_bots/cpp/build/kwhist_cpp_bot --listen 127.0.0.1:50051
//
// KWHIST_LISTEN is "unix:/abs/path.sock" or "host:port" (gRPC C++ accepts both as server
// addresses); --listen ADDR overrides it. Stops cleanly on SIGTERM and SIGINT.
#include <grpcpp/grpcpp.h>
#include <grpcpp/resource_quota.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "knockout_whist/v1/bot.grpc.pb.h"
#include "strategy.h"

namespace {

namespace pb = knockout_whist::v1;

constexpr char kName[] = "cpp-sample";
constexpr char kAuthor[] = "Knockout Whist Referee samples";
constexpr unsigned kProtocolMajor = 1;
constexpr unsigned kProtocolMinor = 1;  // 1.1: Play, one stream per seat and game

class BotService final : public pb::KnockoutWhistBot::Service {
 public:
  grpc::Status Hello(grpc::ServerContext*, const pb::HelloRequest*, pb::HelloReply* reply) override {
    reply->set_protocol_major(kProtocolMajor);
    reply->set_protocol_minor(kProtocolMinor);
    reply->set_name(kName);
    reply->set_author(kAuthor);
    reply->set_plays_streams(true);
    return grpc::Status::OK;
  }

  grpc::Status Decide(grpc::ServerContext*, const pb::DecisionRequest* request, pb::Action* action) override {
    *action = kwhist::Decide(*request);
    return grpc::Status::OK;
  }

  // One seat of one game on one stream (protocol 1.1, asked because Hello says
  // plays_streams): each request in order, answered with its decision_number. Read fails
  // when the referee ends the stream (the game is over) or cancels it (after a fault it
  // asks the seat's next decision on a new stream). An open stream holds one of the
  // server's threads (at most 16, below).
  grpc::Status Play(grpc::ServerContext*, grpc::ServerReaderWriter<pb::Answer, pb::DecisionRequest>* stream) override {
    pb::DecisionRequest request;
    pb::Answer answer;
    while (stream->Read(&request)) {
      answer.set_decision_number(request.decision_number());
      *answer.mutable_action() = kwhist::Decide(request);
      if (!stream->Write(answer)) break;
    }
    return grpc::Status::OK;
  }

  grpc::Status GameOver(grpc::ServerContext*, const pb::GameSummary*, pb::Ack*) override {
    return grpc::Status::OK;
  }
};

std::string ListenAddress(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--listen" && i + 1 < argc) return argv[i + 1];
    if (arg.rfind("--listen=", 0) == 0) return arg.substr(9);
  }
  const char* env = std::getenv("KWHIST_LISTEN");
  return env == nullptr ? "" : env;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string address = ListenAddress(argc, argv);
  if (address.empty()) {
    std::cerr << kName << ": no address to serve on: set KWHIST_LISTEN=unix:/path/bot.sock "
              << "(or 127.0.0.1:50051), or pass --listen ADDR" << std::endl;
    return 2;
  }

  // Block SIGTERM/SIGINT in every thread (gRPC's threads inherit the mask); one thread
  // waits for them with sigwait and shuts the server down.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  BotService service;
  grpc::ResourceQuota quota("kwhist-bot");
  quota.SetMaxThreads(16);  // stay well inside the sandbox's process/thread limit
  grpc::ServerBuilder builder;
  builder.SetResourceQuota(quota);
  int port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::cerr << kName << ": cannot listen on " << address << std::endl;
    return 2;
  }
  std::cerr << kName << ": serving on " << address << std::endl;

  std::thread stopper([&server, &signals] {
    int received = 0;
    sigwait(&signals, &received);
    // Let calls in flight finish, for at most 1 s.
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  });
  server->Wait();
  stopper.join();
  return 0;
}
