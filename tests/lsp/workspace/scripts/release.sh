#!/bin/sh
# Builds and ships a release of the shop.

build_assets() {
	mkdir -p dist
	cp -r web dist/
}

ship_release() {
	build_assets
	echo "shipping $1"
}

ship_release "$@"
