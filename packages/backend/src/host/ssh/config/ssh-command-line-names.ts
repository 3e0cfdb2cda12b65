/**
 * What ssh accepts as a host or user name on its command line (readconf.c ssh_valid_hostname and ssh_valid_ruser,
 * which Debian's 9.2p1 backports for CVE-2023-51385 and CVE-2026-35386): these names reach %h, %n and %r, so shell
 * metacharacters are refused. Names written in the config itself are not checked.
 */

// eslint-disable-next-line no-control-regex -- control characters are among what ssh refuses
const HOSTNAME_REFUSED = /[\s\x00-\x1f\x7f'`"$\\;&<>|(){},]/;
// eslint-disable-next-line no-control-regex -- as above
const USER_REFUSED = /[\x00-\x1f\x7f'`";&<>|(){}]|\s-|\\$/;

export function isValidHostnameArg(name: string): boolean {
  return !name.startsWith('-') && !HOSTNAME_REFUSED.test(name);
}

export function isValidRemoteUser(name: string): boolean {
  return !name.startsWith('-') && !USER_REFUSED.test(name);
}
