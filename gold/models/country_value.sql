-- Customer value per country and currency, built on customer_lifetime_value.
-- materialized: table
-- test: unique(country, currency)
-- test: assert(customers > 0 AND lifetime_revenue > 0)
SELECT
  coalesce(country, 'unknown') AS country,
  currency,
  count(DISTINCT customer_id) AS customers,
  sum(delivered_orders) AS delivered_orders,
  sum(lifetime_revenue) AS lifetime_revenue
FROM {{ ref('customer_lifetime_value') }}
GROUP BY coalesce(country, 'unknown'), currency
