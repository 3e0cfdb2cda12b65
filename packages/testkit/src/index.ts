export * from './scripted-replies.ts';
export * from './messages-request.ts';
export * from './scripted-model.ts';
export * from './claude-cli.ts';
export * from './process-scan.ts';
export * from './wait-until.ts';
export * from './sshd.ts';
export * from './claude-install.ts';
