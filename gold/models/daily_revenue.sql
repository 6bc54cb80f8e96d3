-- Revenue of delivered orders per delivery day and currency.
-- Delivery is an order's last status, so a delivered order's day never changes afterwards: rebuilding only the
-- run's days is exact once silver holds the day's deliveries. A delivery that reaches silver after its day was
-- built counts when that day is built again: schedule with a lookback (--from two days back --to the day).
-- materialized: incremental
-- partition-by: delivery_date
-- test: not_null(delivery_date, currency)
-- test: unique(delivery_date, currency)
-- test: accepted_values(currency, 'EUR', 'USD', 'GBP')
-- test: assert(revenue > 0 AND orders > 0)
SELECT
  CAST(event_time AS DATE) AS delivery_date,
  currency,
  count(*) AS orders,
  sum(items) AS items,
  sum(amount) AS revenue
FROM {{ source('silver.orders') }}
WHERE status = 'delivered'
  AND NOT _is_deleted
  AND event_time >= {{ start }} AND event_time < {{ end }}
GROUP BY CAST(event_time AS DATE), currency
