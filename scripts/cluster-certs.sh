#!/usr/bin/env bash
# Certificates for a lab's Dask cluster (docs/cluster.md): a certificate authority of your
# own, and a key and certificate signed by it for the scheduler, the workers and the
# coordinator. The scheduler accepts only peers holding a certificate of this CA, so keep
# ca.key (and every *.key) away from the students' machines.
#
#   scripts/cluster-certs.sh DIR [NAME...]
#
# DIR is made (mode 0700); NAMEs (host names or IP addresses of the scheduler) go into the
# scheduler's certificate. Needs openssl. Writes ca.pem, ca.key and, for each of scheduler,
# worker and coordinator, NAME.pem and NAME.key; and coordinator.env, the three variables
# that point `referee run --cluster tls://...` at the coordinator's files.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 DIR [SCHEDULER_NAME...]" >&2
  exit 2
fi
dir=$1
shift
command -v openssl >/dev/null || { echo "$0: openssl is not installed (apt-get install openssl)" >&2; exit 2; }
umask 077
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
days=825

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days "$days" \
  -subj "/CN=knockout whist lab CA" -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null

for role in scheduler worker coordinator; do
  names="DNS:$role"
  if [ "$role" = scheduler ]; then
    for name in "$@"; do
      if [[ $name =~ ^[0-9.]+$ || $name == *:* ]]; then names="$names,IP:$name"; else names="$names,DNS:$name"; fi
    done
  fi
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=kwhist $role" \
    -keyout "$dir/$role.key" -out "$dir/$role.csr" 2>/dev/null
  printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$names" > "$dir/$role.ext"
  openssl x509 -req -in "$dir/$role.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial \
    -days "$days" -extfile "$dir/$role.ext" -out "$dir/$role.pem" 2>/dev/null
  rm -f "$dir/$role.csr" "$dir/$role.ext"
done
rm -f "$dir/ca.srl"
chmod 0644 "$dir"/*.pem

cat > "$dir/coordinator.env" <<ENV
export DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION=True
export DASK_DISTRIBUTED__COMM__TLS__CA_FILE=$dir/ca.pem
export DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT=$dir/coordinator.pem
export DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY=$dir/coordinator.key
ENV
echo "certificates in $dir: ca.pem; scheduler, worker and coordinator .pem/.key; coordinator.env"
