-- Orders by their current status, per day of their latest event.
-- An order moves to a later day when its status changes, so any day can change: the table is rebuilt in full.
-- materialized: table
-- test: not_null(status_date, status)
-- test: unique(status_date, status)
-- test: accepted_values(status, 'created', 'paid', 'shipped', 'delivered', 'cancelled')
SELECT
  CAST(event_time AS DATE) AS status_date,
  status,
  count(*) AS orders,
  sum(amount) AS amount
FROM {{ source('silver.orders') }}
WHERE NOT _is_deleted
GROUP BY CAST(event_time AS DATE), status
