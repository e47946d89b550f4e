/**
 * Counts the statements run through a Kysely handle: `db.withPlugin(counter)` gives a
 * handle whose every query (raw `sql` included) passes transformQuery once, whether the
 * database then answers or not.
 */
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

export class CountingPlugin implements KyselyPlugin {
  queries = 0;

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.queries++;
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
