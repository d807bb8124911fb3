// Starts `pcc lsp` for PL files and stops it with the editor.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration('pcc').get('path') || 'pcc';
  const server = { command, args: ['lsp'] };
  client = new LanguageClient(
    'pcc',
    'PL (pcc lsp)',
    { run: server, debug: server },
    {
      // The server asks to watch `*.profile.json` itself, to refresh its profile overlays.
      documentSelector: [{ scheme: 'file', language: 'pl' }],
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
