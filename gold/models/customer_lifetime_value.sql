-- Every customer's delivered orders over their whole lifetime, per currency, with the customer's current details.
-- A run recomputes the customers who had a delivery, or whose record changed (or was deleted), in its interval, and
-- merges them in; the others keep their rows. The relationship test fails for an order whose customer's tombstone
-- has been purged (older than the silver tombstone horizon).
-- materialized: merge
-- unique-key: customer_id, currency
-- test: not_null(customer_id, currency)
-- test: relationship(customer_id, silver.customers.id)
-- test: assert(lifetime_revenue > 0 AND first_delivery <= last_delivery)
WITH delivered AS (
  SELECT customer_id, currency, amount, event_time
  FROM {{ source('silver.orders') }}
  WHERE status = 'delivered' AND NOT _is_deleted
),
touched AS (
  SELECT customer_id FROM delivered WHERE event_time >= {{ start }} AND event_time < {{ end }}
  UNION
  SELECT id FROM {{ source('silver.customers') }}
  WHERE _ts_ms >= unix_millis(CAST({{ start }} AS TIMESTAMP)) AND _ts_ms < unix_millis(CAST({{ end }} AS TIMESTAMP))
)
SELECT
  d.customer_id,
  d.currency,
  c.name,
  c.country,
  c.tier,
  count(*) AS delivered_orders,
  sum(d.amount) AS lifetime_revenue,
  min(d.event_time) AS first_delivery,
  max(d.event_time) AS last_delivery
FROM delivered d
JOIN touched t ON t.customer_id = d.customer_id
LEFT JOIN {{ source('silver.customers') }} c ON c.id = d.customer_id AND NOT c._is_deleted
GROUP BY d.customer_id, d.currency, c.name, c.country, c.tier
