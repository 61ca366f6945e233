#!/bin/sh
# Installs a release of Tierlink (npm run package: release/tierlink-<version>.tar.gz) into a folder:
# unpacks it and installs its runtime dependencies, nothing else. The Dockerfile runs this, the
# release test runs this, and docs/operating.md tells an operator to run this.
#
#   sh deploy/install-release.sh tierlink-0.2.0.tar.gz /opt/tierlink
#
# Then, in that folder: npm start (with the environment or a .env there).
set -eu
if [ "$#" -ne 2 ]; then
  echo "usage: sh install-release.sh <tierlink-VERSION.tar.gz> <folder>" >&2
  exit 2
fi
tarball=$1
into=$2
mkdir -p "$into"
tar -xzf "$tarball" --strip-components=1 -C "$into"
cd "$into"
npm ci --omit=dev --no-audit --no-fund
