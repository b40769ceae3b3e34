#!/bin/sh
# The Debian (and Ubuntu) packages the sample bots of each language need to build and run.
#
#   sample_bots/packages.sh LANGUAGE...            make sure they are installed (`make bots`)
#   sample_bots/packages.sh --missing LANGUAGE...  print the missing ones (.ci/run)
#   sample_bots/packages.sh --list LANGUAGE        print them all
#
# LANGUAGE: node, cpp, go or java. Installed means `dpkg -s` knows it (Node.js and npm may
# also come from elsewhere: node and npm on PATH); without dpkg (not Debian), the commands a
# language's build runs are looked for on PATH instead. Run by root
# where apt-get is, the missing packages are installed (one apt-get for all the languages
# asked); anyone else gets one line per language with what to install, and exit code 1.
set -u

packages() {
  case "$1" in
    node) echo "nodejs npm" ;;  # or Node.js from elsewhere (NodeSource, nvm): node and npm on PATH
    cpp) echo "g++ cmake pkg-config protobuf-compiler protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev" ;;
    # Debian's grpc package pulls in the old protobuf 1.3 API, whose messages panic at the
    # first call with code from Debian's protoc-gen-go: the 1.5 package replaces it.
    go) echo "golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev golang-github-golang-protobuf-1-5-dev" ;;
    # perfmark at run time (libgrpc-java does not depend on it), the javax.annotation jar to
    # compile the generated service (sample_bots/java/README.md)
    java) echo "default-jdk-headless protobuf-compiler protobuf-compiler-grpc-java-plugin libgrpc-java libprotobuf-java libnetty-java libperfmark-java libgeronimo-annotation-1.3-spec-java" ;;
    *) echo "sample_bots/packages.sh: unknown language '$1' (node, cpp, go or java)" >&2; exit 2 ;;
  esac
}

commands() {  # what a language's build runs, looked for where there is no dpkg
  case "$1" in
    node) echo "node npm" ;;
    cpp) echo "g++ cmake pkg-config protoc grpc_cpp_plugin" ;;
    go) echo "go protoc protoc-gen-go protoc-gen-go-grpc" ;;
    java) echo "javac jar protoc grpc_java_plugin" ;;
  esac
}

stands_in() {  # the command that counts as the package where dpkg does not know it
  case "$1" in
    nodejs) echo node ;;
    npm) echo npm ;;
  esac
}

missing() {  # the missing packages of one language (or, without dpkg, its missing commands)
  found=""
  if command -v dpkg >/dev/null 2>&1; then
    for package in $(packages "$1"); do
      dpkg -s "$package" >/dev/null 2>&1 && continue
      program=$(stands_in "$package")
      [ -n "$program" ] && command -v "$program" >/dev/null 2>&1 && continue
      found="$found $package"
    done
  else
    for program in $(commands "$1"); do
      command -v "$program" >/dev/null 2>&1 || found="$found $program"
    done
  fi
  echo "${found# }"
}

case "${1:-}" in
  --list) packages "$2"; exit 0 ;;
  --missing)
    shift
    all=""
    for language in "$@"; do all="$all $(missing "$language")"; done
    printf '%s\n' $all | sort -u | tr '\n' ' ' | sed 's/ $//'
    echo
    exit 0
    ;;
  "") echo "usage: sample_bots/packages.sh [--missing|--list] LANGUAGE... (node, cpp, go, java)" >&2; exit 2 ;;
esac

needed=""
for language in "$@"; do
  packages "$language" >/dev/null || exit 2
  needed="$needed $(missing "$language")"
done
needed=$(printf '%s\n' $needed | sort -u | tr '\n' ' ')
needed=${needed% }
[ -z "$needed" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1; then
  echo "bots: installing $needed (apt-get)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $needed >/dev/null || exit 1
  exit 0
fi

for language in "$@"; do
  lacking=$(missing "$language")
  [ -z "$lacking" ] && continue
  if command -v dpkg >/dev/null 2>&1; then
    echo "bots-$language: missing Debian packages: $lacking (as root: apt-get install $lacking)" >&2
  else
    echo "bots-$language: missing programs: $lacking (on Debian or Ubuntu: apt-get install $(packages "$language"))" >&2
  fi
done
exit 1
