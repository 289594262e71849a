// `npm run cli -- search --query TEXT [--provider P | --corpus F.jsonl] [--config F] [--k N]
// [--json]`: one search through the same code as the studio: a web provider (settings + keys
// from the environment, as the proxy) or the offline BM25 corpus. Exercised by tools-cli.test.ts.
import { readFileSync } from 'node:fs';
import { getBool, getNumber, getString, requireString, type CliCommand } from '../../util/args';
import { loadSearchConfig, resolveSearchConfig } from '../../server/search/config';
import { SearchService } from '../../server/search/service';
import { defaultConfigPath } from '../../server/proxy/server';
import { CorpusSearch, parseCorpusJsonl } from '../../tools/search/corpus';
import { formatResults, type SearchResult } from '../../tools/search/types';

export const command: CliCommand = {
  name: 'search',
  summary: 'search the web (through the proxy code) or an offline corpus',
  usage: [
    'Usage: npm run cli -- search --query TEXT [--provider P | --corpus F.jsonl] [--config F] [--k N] [--json]',
    '',
    '  --corpus F.jsonl   BM25 over {"id","title","text"} lines, e.g. datasets/squad_corpus.jsonl',
    '  --provider P       tavily | serper | bing | searxng | custom (overrides the settings file)',
    '  --config F         settings YAML/JSON (default configs/search.yaml or $SEARCH_CONFIG)',
    '  --k N              number of results (default: the settings\' default_count, 5)',
    '  --json             print {results} as JSON instead of the text the model reads',
  ].join('\n'),
  async run(args) {
    const query = requireString(args, 'query');
    const corpusPath = getString(args, 'corpus');
    const provider = getString(args, 'provider');
    if (corpusPath && provider) throw new Error('give --provider or --corpus, not both');
    let results: SearchResult[];
    if (corpusPath) {
      const corpus = new CorpusSearch(parseCorpusJsonl(readFileSync(corpusPath, 'utf8'), corpusPath));
      results = await corpus.search(query, getNumber(args, 'k', 5));
    } else {
      const path = getString(args, 'config') ?? defaultConfigPath();
      let config = loadSearchConfig(path);
      if (provider) {
        const { api_key_env: _drop, ...rest } = config;
        config = resolveSearchConfig({ ...rest, provider, ...(process.env.SEARCH_API_KEY_ENV ? { api_key_env: process.env.SEARCH_API_KEY_ENV } : {}) });
      }
      const service = new SearchService(config);
      results = (await service.search(query, getNumber(args, 'k', config.default_count))).results;
    }
    console.log(getBool(args, 'json', false) ? JSON.stringify({ results }) : formatResults(results));
    return 0;
  },
};
