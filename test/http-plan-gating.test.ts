import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccessControl } from '../src/core/accounts/access.js';
import { AccountAdmin } from '../src/core/accounts/admin.js';
import { openAccountStore } from '../src/core/accounts/store.js';
import { ENDPOINTS, PLANS, planIncludes, type PlanName } from '../src/core/accounts/plans.js';
import { ROUTES } from '../src/routes/index.js';
import { OPERATOR_KEY, call, startTestServer } from './helpers/server.js';

/** The smallest valid body per endpoint, so a request that passes the plan check is answered 200. */
const BODIES: Record<string, unknown> = {
  embed: { items: ['Masala Dosa'] },
  embed_batch: { items: ['Masala Dosa'] },
  search: { query: 'dosa', corpus: ['Masala Dosa', 'Cold Coffee'] },
  match: { pairs: [{ text_a: 'Masala Dosa', text_b: 'Masala Dosai' }] },
  dedup: { items: ['Masala Dosa', 'Masala Dosa (Half)'] },
  classify: { items: ['Masala Dosa'] },
  report: { items: ['Masala Dosa', 'Cold Coffee'] },
  suggest: { cart: ['Masala Dosa'], menu: ['Cold Coffee', 'Gulab Jamun'] },
  openai_embeddings: { input: 'Masala Dosa' }, // plus the served model, below
};

t.test('every registered endpoint × every plan, through HTTP with real keys', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mi-gating-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const store = await openAccountStore({ dataDir });
  const admin = new AccountAdmin(store);
  const keys = {} as Record<PlanName, string>;
  for (const plan of Object.keys(PLANS) as PlanName[]) keys[plan] = (await admin.create({ customer: `Gating ${plan}`, plan, metering: 'quota' })).key;
  await store.close();
  const gate = await createAccessControl({ dataDir, operatorKey: OPERATOR_KEY });
  const srv = await startTestServer({}, gate);
  t.teardown(() => srv.close());

  const routed = ROUTES.filter((r) => r.authenticated);
  t.ok(routed.length >= 9, 'all metered endpoints and /balance are registered');
  for (const route of routed) {
    for (const plan of Object.keys(PLANS) as PlanName[]) {
      const body = route.endpoint === 'openai_embeddings' ? { ...(BODIES.openai_embeddings as object), model: srv.services.modelId } : BODIES[route.endpoint];
      const r = await call(srv.url, route.method.toUpperCase(), route.path, route.method === 'post' ? body : undefined, { 'x-api-key': keys[plan] });
      if (ENDPOINTS[route.endpoint].operatorOnly) {
        t.equal(r.status, 403, `${plan} → ${route.path}: 403, operator only`);
        t.equal(r.body.code, 'operator_only');
      } else if (planIncludes(plan, route.endpoint)) {
        t.equal(r.status, 200, `${plan} → ${route.path}: 200`);
      } else {
        t.equal(r.status, 403, `${plan} → ${route.path}: 403`);
        t.equal(r.body.code, 'plan_forbidden');
        const needed = ENDPOINTS[route.endpoint].minPlan;
        t.match(r.body.detail, new RegExp(needed, 'i'), `the detail names the ${needed} plan`);
      }
    }
  }
});
