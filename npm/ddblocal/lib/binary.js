'use strict';
// Finds the ddblocal executable: the one the platform package installed
// (npm picks @ddblocal/<platform>-<arch> from optionalDependencies by its
// "os" and "cpu" fields; nothing is downloaded at install time), or the one
// DDBLOCAL_BINARY names.

/** The platform package for this machine, e.g. "@ddblocal/linux-x64". */
function platformPackage(platform = process.platform, arch = process.arch) {
  return `@ddblocal/${platform}-${arch}`;
}

/** Absolute path of the ddblocal executable; throws saying how to get one. */
function binaryPath() {
  if (process.env.DDBLOCAL_BINARY) return process.env.DDBLOCAL_BINARY;
  const pkg = platformPackage();
  const exe = process.platform === 'win32' ? 'ddblocal.exe' : 'ddblocal';
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    throw new Error(
      `ddblocal: no prebuilt binary for ${process.platform}-${process.arch}: the optional dependency ${pkg} is not installed ` +
        '(npm installs it when the platform matches; --omit=optional, --no-optional or a lockfile made without it leaves it out). ' +
        'Reinstall, or set DDBLOCAL_BINARY to a ddblocal executable.',
    );
  }
}

module.exports = { binaryPath, platformPackage };
