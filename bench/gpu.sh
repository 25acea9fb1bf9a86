#!/usr/bin/env bash
# The devices' benchmark (bench/devices.sh) on a machine with an NVIDIA GPU:
# it checks that Flux's OpenCL device is the GPU (NVIDIA's ICD, which the
# driver installs), then runs bench/devices.sh with a larger simulation
# and prints the GPU's speed-up over the CPU. Not part of make bench: run it
# where a GPU is.
#
#   bench/gpu.sh [RUNS] [PARTICLES]
set -euo pipefail
cd "$(dirname "$0")/.."
flux=${FLUX:-build/flux}
device=$("$flux" hw | sed -n 's/^ *opencl: //p')
case $device in
*", GPU, "*) echo "GPU: $device" ;;
*) echo "bench/gpu.sh: the OpenCL device is not a GPU: ${device:-none}"; exit 1 ;;
esac
FLUX=$flux bench/devices.sh "${1:-3}" "${2:-4000}"
