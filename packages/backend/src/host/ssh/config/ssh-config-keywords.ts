/**
 * Every keyword OpenSSH 9.2's ssh_config knows (readconf.c keywords[], as Debian builds it: with GSSAPI and PKCS#11),
 * sorted by what Catalyst does with it. A keyword not here is an error, as in ssh, unless IgnoreUnknown lists it.
 */

/** Resolved into ResolvedSshConfig (or, for host/match/include, what decides which lines apply). */
const RESOLVED = [
  'host',
  'match',
  'include',
  'hostname',
  'port',
  'user',
  'identityfile',
  'identitiesonly',
  'certificatefile',
  'identityagent',
  'proxyjump',
  'proxycommand',
  'connecttimeout',
  'serveraliveinterval',
  'serveralivecountmax',
  'hostkeyalias',
  'userknownhostsfile',
  'globalknownhostsfile',
  'stricthostkeychecking',
  'ignoreunknown',
] as const;
export type ResolvedKeyword = (typeof RESOLVED)[number];

/** Known to ssh and kept, with their values, as "other options" so a caller can name what it ignores. */
const OTHER = [
  'addkeystoagent',
  'addressfamily',
  'batchmode',
  'bindaddress',
  'bindinterface',
  'canonicaldomains',
  'canonicalizefallbacklocal',
  'canonicalizehostname',
  'canonicalizemaxdots',
  'canonicalizepermittedcnames',
  'casignaturealgorithms',
  'checkhostip',
  'ciphers',
  'clearallforwardings',
  'compression',
  'controlmaster',
  'controlpath',
  'controlpersist',
  'dynamicforward',
  'enableescapecommandline',
  'enablesshkeysign',
  'escapechar',
  'exitonforwardfailure',
  'fingerprinthash',
  'forkafterauthentication',
  'forwardagent',
  'forwardx11',
  'forwardx11timeout',
  'forwardx11trusted',
  'gatewayports',
  'gssapiauthentication',
  'gssapidelegatecredentials',
  'hashknownhosts',
  'hostbasedacceptedalgorithms',
  'hostbasedauthentication',
  'hostkeyalgorithms',
  'ipqos',
  'kbdinteractiveauthentication',
  'kbdinteractivedevices',
  'kexalgorithms',
  'knownhostscommand',
  'localcommand',
  'localforward',
  'loglevel',
  'logverbose',
  'macs',
  'nohostauthenticationforlocalhost',
  'numberofpasswordprompts',
  'passwordauthentication',
  'permitlocalcommand',
  'permitremoteopen',
  'pkcs11provider',
  'preferredauthentications',
  'proxyusefdpass',
  'pubkeyacceptedalgorithms',
  'pubkeyauthentication',
  'rekeylimit',
  'remotecommand',
  'remoteforward',
  'requestty',
  'requiredrsasize',
  'revokedhostkeys',
  'securitykeyprovider',
  'sendenv',
  'sessiontype',
  'setenv',
  'stdinnull',
  'streamlocalbindmask',
  'streamlocalbindunlink',
  'syslogfacility',
  'tcpkeepalive',
  'tunnel',
  'tunneldevice',
  'updatehostkeys',
  'verifyhostkeydns',
  'visualhostkey',
  'xauthlocation',
] as const;

/** Older spellings ssh still reads as the option they name (first value wins across the spellings). */
const ALIASES: Readonly<Record<string, string>> = {
  identityfile2: 'identityfile',
  challengeresponseauthentication: 'kbdinteractiveauthentication',
  skeyauthentication: 'kbdinteractiveauthentication',
  tisauthentication: 'kbdinteractiveauthentication',
  dsaauthentication: 'pubkeyauthentication',
  keepalive: 'tcpkeepalive',
  hostbasedkeytypes: 'hostbasedacceptedalgorithms',
  pubkeyacceptedkeytypes: 'pubkeyacceptedalgorithms',
  smartcarddevice: 'pkcs11provider',
};

/** ssh reads these and does nothing ("Deprecated option", or silently for Protocol). */
const DEPRECATED = new Set([
  'protocol',
  'cipher',
  'fallbacktorsh',
  'globalknownhostsfile2',
  'rhostsauthentication',
  'userknownhostsfile2',
  'useroaming',
  'usersh',
  'useprivilegedport',
]);
/** ssh prints "Unsupported option" for these and goes on. */
const UNSUPPORTED = new Set([
  'afstokenpassing',
  'kerberosauthentication',
  'kerberostgtpassing',
  'rsaauthentication',
  'rhostsrsaauthentication',
  'compressionlevel',
]);

/** Options every line of which applies (they add up); for the others only the first applying line counts. */
export const ACCUMULATING_OTHER_OPTIONS: ReadonlySet<string> = new Set([
  'localforward',
  'remoteforward',
  'dynamicforward',
  'sendenv',
]);

export type KeywordKind =
  | { readonly kind: 'resolved'; readonly name: ResolvedKeyword }
  | { readonly kind: 'other'; readonly name: string }
  | { readonly kind: 'deprecated' | 'unsupported' | 'unknown'; readonly name: string };

const RESOLVED_SET: ReadonlySet<string> = new Set(RESOLVED);
const OTHER_SET: ReadonlySet<string> = new Set(OTHER);

function isResolvedKeyword(name: string): name is ResolvedKeyword {
  return RESOLVED_SET.has(name);
}

/** What a lowercased keyword is, after resolving older spellings. */
export function classifyKeyword(keyword: string): KeywordKind {
  const name = ALIASES[keyword] ?? keyword;
  if (isResolvedKeyword(name)) return { kind: 'resolved', name };
  if (OTHER_SET.has(name)) return { kind: 'other', name };
  if (DEPRECATED.has(name)) return { kind: 'deprecated', name };
  if (UNSUPPORTED.has(name)) return { kind: 'unsupported', name };
  return { kind: 'unknown', name };
}
